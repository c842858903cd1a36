/** What to start: the agent directly (`node main.js`) or wrapped (`bwrap … node main.js`). */
export interface LaunchSpec {
  command: string;
  args: string[];
  /** The complete environment of the child (built from an allow-list, never the server's env). */
  env: Record<string, string>;
  cwd: string;
  /**
   * Descriptors from fd 4 on, in order: `inherit` passes one of this process's descriptors (the agent's listening
   * socket, agent-endpoint.ts), `info` is read for bubblewrap's `--info-fd` JSON (the sandbox's pid), `data` is a
   * pipe carrying `content` (bubblewrap's `--ro-bind-data`), `file` opens `path` read-only for the child alone (the
   * Node binary a sandbox execs as `/proc/self/fd/N`, launch-spec.ts).
   */
  extraFds?: readonly LaunchFd[];
}

export type LaunchFd =
  | { readonly kind: 'inherit'; readonly fd: number }
  | { readonly kind: 'info' }
  | { readonly kind: 'data'; readonly content: string }
  | { readonly kind: 'file'; readonly path: string };

/** First descriptor of `LaunchSpec.extraFds` (0–2 are stdio, 3 is the agent's ready pipe). */
export const FIRST_EXTRA_FD = 4;

export interface ProcessExit {
  code: number | null;
  signal: string | null;
  /** Spawn failure (e.g. ENOENT) instead of an exit. */
  error?: string;
}

/** A started sandbox process. Signals go to its whole process group. */
export interface AgentProcess {
  readonly pid: number;
  /** First line the agent writes to fd 3 (`<port>`); rejects when the process ends or closes fd 3 first. */
  readonly readyLine: Promise<string>;
  /** Settles once, when the process has exited; never rejects. */
  readonly exited: Promise<ProcessExit>;
  /**
   * The `child-pid` bubblewrap reported on the `info` descriptor (its first namespaced process, seen from the
   * host); undefined without one, or when the process ended first.
   */
  readonly sandboxPid: Promise<number | undefined>;
  /** True once the exit was observed. */
  readonly hasExited: boolean;
  kill(signal: 'SIGTERM' | 'SIGKILL'): void;
  /** Last few KiB of the child's stderr, for logs. */
  stderrTail(): string;
}

/** Port around `child_process.spawn`. */
export interface ProcessLauncher {
  launch(spec: LaunchSpec): AgentProcess;
}

export function describeExit(exit: ProcessExit): string {
  if (exit.error) return `could not start: ${exit.error}`;
  if (exit.signal) return `exited on signal ${exit.signal}`;
  return `exited with code ${exit.code}`;
}
