import { randomBytes } from 'node:crypto';
import { mkdir, readFile, rmdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { SessionError, SessionErrorCode } from '../session-error.js';

/** `--local-max-processes` / `--local-max-memory` (C-SEC-3, optional). */
export interface SandboxLimits {
  /** Tasks (processes and threads) per sandbox, the agent's own included. */
  maxProcesses?: number;
  /** Bytes of memory per sandbox, the agent's own included. */
  maxMemoryBytes?: number;
}

/** The cgroup files the limits need (a port, so hierarchy detection is unit-tested). */
export interface CgroupFs {
  readText(path: string): Promise<string>;
  writeText(path: string, text: string): Promise<void>;
  mkdir(path: string): Promise<void>;
  rmdir(path: string): Promise<void>;
}

export const nodeCgroupFs: CgroupFs = {
  readText: (path) => readFile(path, 'utf8'),
  writeText: (path, text) => writeFile(path, text),
  mkdir: (path) => mkdir(path).then(() => undefined),
  rmdir: (path) => rmdir(path),
};

interface Controller {
  /** Directory of this server's own sandbox cgroups (`…/cli-mcp-<pid>-<token>`). */
  base: string;
  /** File and value that set the limit, per cgroup version. */
  file: string;
  value: string;
}

/** One sandbox's cgroups: the files its process joins, removed after it exited. */
export interface SandboxCgroups {
  readonly procsFiles: readonly string[];
  remove(): Promise<void>;
}

const HINT = 'they need a cgroup this server may write (cgroup v1 pids/memory controllers as root, or a cgroup v2 ' +
  'subtree with those controllers delegated, e.g. a systemd unit with Delegate=yes); leave them unset here';

/**
 * Per-sandbox limits through cgroups (bubblewrap has none): each sandbox gets its own child cgroup under one
 * created for this server inside the server's own cgroup — so the server's own limits still bound them all —
 * with `pids.max` and a memory limit. Where the host does not allow it, start-up fails with a message naming the
 * flags (docs/local-backend.md "Limits").
 */
export class CgroupLimits {
  private controllers: Controller[] = [];
  private next = 0;
  /** Sandbox cgroups being removed (their sandboxes ended), which `close` waits for. */
  private readonly removals = new Set<Promise<void>>();

  /**
   * `token` makes the name this instance's own: a pid alone is not (a server killed with SIGKILL leaves its empty
   * `cli-mcp-<pid>` behind, and a later process given the same pid failed its mkdir with EEXIST and fell back to the
   * rlimit layer, whose RLIMIT_NPROC counts the sandbox user's processes host-wide; two backends in one process
   * shared one name too). Issue 19.
   */
  constructor(
    private readonly limits: SandboxLimits,
    private readonly fs: CgroupFs = nodeCgroupFs,
    private readonly pid = process.pid,
    private readonly token = randomBytes(4).toString('hex'),
  ) {}

  get active(): boolean {
    return this.limits.maxProcesses !== undefined || this.limits.maxMemoryBytes !== undefined;
  }

  async prepare(): Promise<void> {
    if (!this.active) return;
    const own = parseProcCgroup(await this.fs.readText('/proc/self/cgroup'));
    const mounts = parseCgroupMounts(await this.fs.readText('/proc/self/mountinfo'));
    const wanted: Array<{ name: 'pids' | 'memory'; flag: string; v1: [string, string]; v2: [string, string] }> = [];
    if (this.limits.maxProcesses !== undefined) {
      const value = String(this.limits.maxProcesses);
      wanted.push({ name: 'pids', flag: '--local-max-processes', v1: ['pids.max', value], v2: ['pids.max', value] });
    }
    if (this.limits.maxMemoryBytes !== undefined) {
      const value = String(this.limits.maxMemoryBytes);
      wanted.push({ name: 'memory', flag: '--local-max-memory', v1: ['memory.limit_in_bytes', value], v2: ['memory.max', value] });
    }
    try {
      for (const controller of wanted) await this.prepareController(controller, own, mounts);
    } catch (error) {
      await this.close();
      throw error;
    }
  }

  private async prepareController(
    controller: { name: 'pids' | 'memory'; flag: string; v1: [string, string]; v2: [string, string] },
    own: ReturnType<typeof parseProcCgroup>, mounts: ReturnType<typeof parseCgroupMounts>,
  ): Promise<void> {
    {
      const v1Mount = mounts.v1.get(controller.name);
      const v1Path = own.v1.get(controller.name);
      const [mount, path, [file, value]] = v1Mount !== undefined && v1Path !== undefined
        ? [v1Mount, v1Path, controller.v1]
        : [mounts.v2, own.v2, controller.v2];
      if (mount === undefined || path === undefined) {
        throw unavailable(`${controller.flag}: no ${controller.name} cgroup controller is mounted here; ${HINT}`);
      }
      const base = join(mount, path, `cli-mcp-${this.pid}-${this.token}`);
      try {
        await this.fs.mkdir(base);
        if (mount === mounts.v2) await this.fs.writeText(join(base, 'cgroup.subtree_control'), `+${controller.name}`);
      } catch (error) {
        await this.fs.rmdir(base).catch(() => undefined);
        throw unavailable(`${controller.flag}: cannot create a ${controller.name} cgroup under ${join(mount, path)} (${reason(error)}); ${HINT}`);
      }
      this.controllers.push({ base, file, value });
    }
  }

  /** Creates one sandbox's cgroups with its limits; the sandbox's first process must join `procsFiles`. */
  async forSandbox(): Promise<SandboxCgroups | undefined> {
    if (this.controllers.length === 0) return undefined;
    const name = `sandbox-${this.next++}`;
    const dirs: string[] = [];
    try {
      for (const controller of this.controllers) {
        const dir = join(controller.base, name);
        await this.fs.mkdir(dir);
        dirs.push(dir);
        await this.fs.writeText(join(dir, controller.file), controller.value);
      }
    } catch (error) {
      await Promise.all(dirs.map((dir) => this.fs.rmdir(dir).catch(() => undefined)));
      throw unavailable(`start sandbox: cannot set its cgroup limits: ${reason(error)}`);
    }
    let removing: Promise<void> | undefined;
    const remove = (): Promise<void> => {
      // A cgroup is removable once its last task is reaped, which may lag the exit a moment.
      removing ??= Promise.all(dirs.map((dir) => removeSoon(this.fs, dir))).then(() => undefined);
      this.removals.add(removing);
      return removing;
    };
    return { procsFiles: dirs.map((dir) => join(dir, 'cgroup.procs')), remove };
  }

  /** Removes this server's cgroups once every sandbox's own ones are removed (call after the sandboxes ended). */
  async close(): Promise<void> {
    await Promise.all([...this.removals]);
    await Promise.all(this.controllers.map((controller) => removeSoon(this.fs, controller.base)));
    this.controllers = [];
  }
}

async function removeSoon(fs: CgroupFs, dir: string): Promise<void> {
  for (let attempt = 0; attempt < 20; attempt++) {
    try {
      await fs.rmdir(dir);
      return;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EBUSY') return;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
}

/** `/proc/self/cgroup`: v1 lines `N:pids:/path`, the v2 line `0::/path`. */
export function parseProcCgroup(text: string): { v1: Map<string, string>; v2?: string } {
  const v1 = new Map<string, string>();
  let v2: string | undefined;
  for (const line of text.split('\n')) {
    const match = /^\d+:([^:]*):(.*)$/.exec(line);
    if (!match) continue;
    const [, controllers = '', path = '/'] = match;
    if (controllers === '') v2 = path;
    else for (const name of controllers.split(',')) v1.set(name, path);
  }
  return { v1, v2 };
}

/** `/proc/self/mountinfo`: where each v1 controller and the v2 hierarchy are mounted. */
export function parseCgroupMounts(text: string): { v1: Map<string, string>; v2?: string } {
  const v1 = new Map<string, string>();
  let v2: string | undefined;
  for (const line of text.split('\n')) {
    const [left, right] = line.split(' - ');
    if (!left || !right) continue;
    const mountPoint = left.split(' ')[4];
    const [fsType, , superOptions = ''] = right.split(' ');
    if (mountPoint === undefined) continue;
    if (fsType === 'cgroup2') v2 ??= mountPoint;
    if (fsType === 'cgroup') for (const option of superOptions.split(',')) if (option === 'pids' || option === 'memory') v1.set(option, mountPoint);
  }
  return { v1, v2 };
}

function unavailable(message: string): SessionError {
  return new SessionError(SessionErrorCode.SandboxUnavailable, message);
}

function reason(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
