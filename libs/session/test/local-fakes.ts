/** Fakes of the local backend's ports. */
import type { AgentEndpoint, AgentEndpoints } from '../src/local/agent-endpoint.js';
import type { SandboxUser } from '../src/local/bwrap-command.js';
import type { CgroupFs } from '../src/local/cgroup-limits.js';
import type { NetworkAttacher, SandboxNetwork } from '../src/local/slirp-network.js';
import type { CommandResult, CommandRunner } from '../src/local/command-runner.js';
import type { HostFs, RootEntry } from '../src/local/host-fs.js';
import type { AgentProcess, LaunchSpec, ProcessExit, ProcessLauncher } from '../src/local/process-launcher.js';
import type { RecoveredSession, WorkspaceStore } from '../src/local/workspace-store.js';
import { deferred } from './fakes.js';

export class FakeProcess implements AgentProcess {
  private static nextPid = 1000;
  readonly pid = FakeProcess.nextPid++;
  readonly signals: string[] = [];
  private readonly ready = deferred<string>();
  private readonly exit = deferred<ProcessExit>();
  private exitSeen = false;
  readonly readyLine = this.ready.promise;
  readonly exited = this.exit.promise;
  /** Like bubblewrap's `--info-fd`: a pid when the spec asked for one. */
  readonly sandboxPid: Promise<number | undefined>;
  /** When false, SIGTERM is ignored (only SIGKILL ends it). */
  exitsOnTerm = true;

  constructor(readonly spec: LaunchSpec) {
    this.readyLine.catch(() => undefined);
    this.sandboxPid = Promise.resolve(spec.extraFds?.some((fd) => fd.kind === 'info') ? this.pid + 100_000 : undefined);
  }

  get hasExited(): boolean {
    return this.exitSeen;
  }

  /** Like the agent: `<port>`, or `unix` when told to listen on a socket. */
  becomeReady(port: number): void {
    this.ready.resolve(this.spec.env.SANDBOX_AGENT_LISTEN_FD ? 'unix' : `${port}`);
  }

  /** The process ends by itself (crash). */
  crash(code = 1): void {
    this.finish({ code, signal: null });
  }

  kill(signal: 'SIGTERM' | 'SIGKILL'): void {
    this.signals.push(signal);
    if (signal === 'SIGKILL' || this.exitsOnTerm) this.finish({ code: null, signal });
  }

  /** What the process wrote to stderr last. */
  stderrLine = 'stderr tail';

  stderrTail(): string {
    return this.stderrLine;
  }

  private finish(exit: ProcessExit): void {
    if (this.exitSeen) return;
    this.exitSeen = true;
    this.ready.reject(new Error(exit.signal ? `exited on signal ${exit.signal}` : `exited with code ${exit.code}`));
    this.exit.resolve(exit);
  }
}

/** Launches fake processes; by default each becomes ready at once on a fresh port. */
export class FakeLauncher implements ProcessLauncher {
  readonly launched: FakeProcess[] = [];
  autoReady = true;
  private nextPort = 40_000;

  launch(spec: LaunchSpec): FakeProcess {
    const child = new FakeProcess(spec);
    this.launched.push(child);
    if (this.autoReady) child.becomeReady(this.nextPort++);
    return child;
  }

  alive(): FakeProcess[] {
    return this.launched.filter((p) => !p.hasExited);
  }
}

export class FakeRunner implements CommandRunner {
  readonly runs: string[] = [];
  constructor(private readonly results: Record<string, CommandResult> = {}) {}
  async run(command: string, args: string[]): Promise<CommandResult> {
    this.runs.push([command, ...args].join(' '));
    return this.results[command] ?? { ok: true, detail: '' };
  }
}

export class FakeHostFs implements HostFs {
  files = new Set<string>(['/repo/dist/apps/sandbox-agent/src/main.js']);
  dirs = new Set<string>();
  root: RootEntry[] = [{ name: 'usr' }, { name: 'bin', symlinkTarget: 'usr/bin' }, { name: 'proc' }, { name: 'etc' }, { name: 'home' }, { name: 'run' }];
  texts = new Map<string, string>([['/etc/resolv.conf', 'nameserver 127.0.0.53\nsearch corp.example\n']]);
  links = new Map<string, string>();
  real = new Map<string, string>();
  async listRoot(): Promise<RootEntry[]> {
    return this.root;
  }
  async realpath(path: string): Promise<string> {
    return this.real.get(path) ?? path;
  }
  async readText(path: string): Promise<string | undefined> {
    return this.texts.get(path);
  }
  async readlink(path: string): Promise<string | undefined> {
    return this.links.get(path);
  }
  async isFile(path: string): Promise<boolean> {
    return this.files.has(path);
  }
  async isDirectory(path: string): Promise<boolean> {
    return this.dirs.has(path);
  }
  async findUp(start: string, name: string): Promise<string | undefined> {
    return name.startsWith('node_modules') && start.startsWith('/repo') ? '/repo' : undefined;
  }
}

/** In-memory workspace store: records which workspaces exist. */
export class FakeWorkspaces implements WorkspaceStore {
  constructor(readonly stateDir = '/state') {}
  readonly sessions = new Map<string, string>();
  readonly warm = new Set<string>();
  prepared = 0;
  closed = 0;
  owner?: SandboxUser;
  /** Sessions an earlier server left; `prepare` hands them over unless told to reset. */
  leftover: string[] = [];
  resets = 0;
  setOwner(owner: SandboxUser | undefined): void {
    this.owner = owner;
  }
  async prepare(reset = false): Promise<RecoveredSession[]> {
    this.prepared++;
    if (reset) this.resets++;
    const recovered = reset ? [] : this.leftover.map((sessionId) => ({ sessionId, workspace: this.sessionWorkspace(sessionId) }));
    for (const { sessionId, workspace } of recovered) this.sessions.set(sessionId, workspace);
    return recovered;
  }
  sessionWorkspace(sessionId: string): string {
    return `/state/sessions/${sessionId}/workspace`;
  }
  async createSession(sessionId: string): Promise<string> {
    this.sessions.set(sessionId, this.sessionWorkspace(sessionId));
    return this.sessionWorkspace(sessionId);
  }
  async createWarm(name: string): Promise<string> {
    this.warm.add(name);
    return `/state/warm/${name}/workspace`;
  }
  async adoptWarm(name: string, sessionId: string): Promise<string> {
    this.sessions.set(sessionId, `/state/warm/${name}/workspace`);
    return `/state/warm/${name}/workspace`;
  }
  async removeSession(sessionId: string): Promise<void> {
    const workspace = this.sessions.get(sessionId);
    const warmName = workspace?.match(/\/warm\/([^/]+)\//)?.[1];
    if (warmName) this.warm.delete(warmName);
    this.sessions.delete(sessionId);
  }
  async removeWarm(name: string): Promise<void> {
    this.warm.delete(name);
  }
  async close(): Promise<void> {
    this.closed++;
    this.warm.clear();
  }
}

/** Lets pending promise callbacks run (fake processes settle through microtasks). */
export async function flush(times = 20): Promise<void> {
  for (let i = 0; i < times; i++) await Promise.resolve();
}

/** Records attachments; each network is "up" at once and ends when closed (or `cut`). */
export class FakeAttacher implements NetworkAttacher {
  readonly attached: Array<{ pid: number; closed: boolean; cut(): void }> = [];
  async attach(sandboxPid: number): Promise<SandboxNetwork> {
    const end = deferred<void>();
    const record = { pid: sandboxPid, closed: false, cut: () => end.resolve() };
    this.attached.push(record);
    return {
      pid: 90_000 + this.attached.length,
      exited: end.promise,
      close: async () => {
        record.closed = true;
        end.resolve();
      },
    };
  }
}

/** Unix-socket endpoints whose sockets are only remembered (no files); fd 99 stands for the listening socket. */
export class FakeSocketEndpoints implements AgentEndpoints {
  readonly released: string[] = [];
  readonly handedOver: string[] = [];
  private next = 0;
  async prepare(): Promise<void> {}
  async allocate(): Promise<AgentEndpoint> {
    const path = `/state/sockets/${this.next++}.sock`;
    return {
      env: { SANDBOX_AGENT_LISTEN_FD: '4' },
      listenFd: 99,
      urlFor: (line) => (line === 'unix' ? `unix:${path}` : undefined),
      handedOver: async () => void this.handedOver.push(path),
      release: async () => void this.released.push(path),
    };
  }
}

/** An in-memory cgroup tree: directories and written files. */
export class FakeCgroupFs implements CgroupFs {
  readonly dirs = new Set<string>();
  readonly written = new Map<string, string>();
  refuseMkdir = false;
  constructor(private readonly files: Record<string, string>) {}
  async readText(path: string): Promise<string> {
    const text = this.files[path];
    if (text === undefined) throw new Error(`ENOENT ${path}`);
    return text;
  }
  async writeText(path: string, text: string): Promise<void> {
    this.written.set(path, text);
  }
  async mkdir(path: string): Promise<void> {
    if (this.refuseMkdir) throw Object.assign(new Error(`EACCES: permission denied, mkdir '${path}'`), { code: 'EACCES' });
    if (this.dirs.has(path)) throw Object.assign(new Error(`EEXIST: file already exists, mkdir '${path}'`), { code: 'EEXIST' });
    this.dirs.add(path);
  }
  async rmdir(path: string): Promise<void> {
    this.dirs.delete(path);
  }
}
