import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { constants } from 'node:os';
import { BASE_NODE_PATH, BASE_PATH, BASE_SYSTEM_DIRS } from './image-root.js';
import type { TestNetns } from './netns.js';

/** How the container runs: the pod's view of an image root. */
export interface ContainerRun {
  readonly root: string;
  readonly argv: readonly string[];
  readonly uid: number;
  readonly workdir: string;
  /** Image ENV, then the pod's env, in order (later wins). */
  readonly env: ReadonlyArray<readonly [string, string]>;
  /** emptyDir mounts: fresh, writable by anyone (mode 0777, as the kubelet makes them). */
  readonly emptyDirs: readonly string[];
  /** Secret/config mounts: host path → container path, read-only. */
  readonly files: ReadonlyArray<{ readonly host: string; readonly path: string }>;
  readonly netns: TestNetns;
}

export interface RunningContainer {
  readonly process: ChildProcess;
  /** stdout + stderr so far. */
  output(): string;
  /** Resolves when the output matches `pattern`; rejects with the output when the process ends first. */
  waitFor(pattern: RegExp): Promise<void>;
  /** Resolves with the exit code (or 128 + signal). */
  readonly exited: Promise<number>;
  stop(): Promise<number>;
}

/** Why containers cannot run here (root, ip, setpriv and bubblewrap without setuid needed), else undefined. */
export function containerRunProblem(): string | undefined {
  if (process.getuid?.() !== 0) return 'needs root (a network namespace per pod, setpriv to an unprivileged UID)';
  for (const tool of ['unshare', 'nsenter', 'ip', 'setpriv', 'bwrap', 'curl']) {
    if (spawnSync('sh', ['-c', `command -v ${tool}`]).status !== 0) return `${tool} is not installed`;
  }
  const probe = spawnSync('setpriv', ['--reuid=1001', '--regid=0', '--clear-groups', '--', 'bwrap', '--ro-bind', '/', '/', '--unshare-pid', 'true']);
  return probe.status === 0 ? undefined : `bwrap cannot run as an unprivileged user: ${probe.stderr.toString().trim()}`;
}

/**
 * Starts `run.argv` as the container runtime would (C-SHIP-1/2): root filesystem = the assembled image root plus
 * this machine's system folders as the base image, all read-only; the pod's emptyDirs and mounted files; own
 * pid/ipc/uts namespaces; the pod's network namespace; as `uid` with GID 0 (OpenShift's arbitrary UIDs), no
 * capabilities, a clean environment. HOME defaults to `/` when the image sets none (runc does the same).
 */
export function startContainer(run: ContainerRun): RunningContainer {
  const args = ['--ro-bind', run.root, '/'];
  for (const dir of BASE_SYSTEM_DIRS) args.push('--ro-bind', dir, dir);
  args.push('--ro-bind', process.execPath, BASE_NODE_PATH, '--proc', '/proc', '--dev', '/dev');
  for (const dir of run.emptyDirs) args.push('--perms', '0777', '--tmpfs', dir);
  for (const file of run.files) args.push('--ro-bind', file.host, file.path);
  const env = new Map<string, string>([['PATH', BASE_PATH], ['HOSTNAME', 'pod']]);
  for (const [name, value] of run.env) env.set(name, value);
  if (!env.has('HOME')) env.set('HOME', '/');
  args.push('--unshare-pid', '--unshare-ipc', '--unshare-uts', '--die-with-parent', '--new-session', '--clearenv');
  for (const [name, value] of env) args.push('--setenv', name, value);
  args.push('--chdir', run.workdir, '--', ...run.argv);
  const argv = run.netns.wrap(['setpriv', `--reuid=${run.uid}`, '--regid=0', '--clear-groups', '--', 'bwrap', ...args]);
  const child = spawn(argv[0]!, argv.slice(1), { stdio: ['ignore', 'pipe', 'pipe'] });
  return watchContainer(child, async () => {
    child.kill('SIGKILL');
  });
}

/**
 * A started container process (bwrap here, `podman run` in podman-runner.ts) as a RunningContainer: its output
 * collected, `waitFor` on it, `stop` ends it with `kill` unless it already ended, then resolves with its exit.
 */
export function watchContainer(child: ChildProcess, kill: () => Promise<void>): RunningContainer {
  let output = '';
  const listeners = new Set<() => void>();
  const onData = (chunk: Buffer): void => {
    output += chunk.toString();
    for (const listener of listeners) listener();
  };
  child.stdout!.on('data', onData);
  child.stderr!.on('data', onData);
  const exited = new Promise<number>((resolve) => child.on('close', (code, signal) => resolve(code ?? 128 + (signal ? constants.signals[signal] : 0))));
  let ended = false;
  void exited.then(() => {
    ended = true;
    for (const listener of listeners) listener();
  });
  return {
    process: child,
    output: () => output,
    exited,
    waitFor: (pattern) =>
      new Promise<void>((resolve, reject) => {
        const check = (): void => {
          if (pattern.test(output)) {
            listeners.delete(check);
            resolve();
          } else if (ended) {
            listeners.delete(check);
            reject(new Error(`the container exited before printing ${pattern}:\n${output}`));
          }
        };
        listeners.add(check);
        check();
      }),
    stop: async () => {
      if (!ended) await kill();
      return exited;
    },
  };
}
