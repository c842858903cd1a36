import { spawn, type ChildProcess } from 'node:child_process';

/** How to start a sandbox agent: an executable and its arguments. */
export interface AgentCommand {
  command: string;
  args: string[];
}

/** How a process ended. */
export interface ProcessExit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

const LOG_TAIL_BYTES = 64 * 1024;
const live = new Set<ChildProcess>();
let exitHookInstalled = false;

/** Last resort: when this process exits, SIGKILL every agent still running (synchronous, best effort). */
function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.once('exit', () => {
    for (const child of live) {
      try {
        child.kill('SIGKILL');
      } catch {
        // already gone
      }
    }
  });
}

/** Maps an exit to the container's exit code (signals → 128 + n, like a container runtime). */
export function exitCodeOf(exit: ProcessExit): number {
  if (exit.code !== null) return exit.code;
  const signals: Partial<Record<NodeJS.Signals, number>> = { SIGKILL: 9, SIGTERM: 15, SIGINT: 2, SIGHUP: 1 };
  return 128 + (exit.signal ? (signals[exit.signal] ?? 1) : 1);
}

/** One running agent process (a simulated container), with its output tail. */
export class AgentProcess {
  readonly pid: number;
  /** Resolves once the process has exited. */
  readonly exited: Promise<ProcessExit>;
  private exit?: ProcessExit;
  private output = '';

  private constructor(
    private readonly child: ChildProcess,
    onOutput?: (stream: 'stdout' | 'stderr', text: string) => void,
  ) {
    this.pid = child.pid as number;
    live.add(child);
    this.exited = new Promise((resolveExit) => {
      child.once('exit', (code, signal) => {
        live.delete(child);
        this.exit = { code, signal };
        resolveExit(this.exit);
      });
    });
    for (const stream of ['stdout', 'stderr'] as const) {
      child[stream]?.setEncoding('utf8');
      child[stream]?.on('data', (text: string) => {
        this.output = (this.output + text).slice(-LOG_TAIL_BYTES);
        onOutput?.(stream, text);
      });
    }
    // stdin stays an open pipe: it closes when this process dies, which agents may use to notice.
    child.stdin?.on('error', () => undefined);
  }

  /** Spawns the agent. Rejects when the executable cannot be started at all. */
  static start(
    command: AgentCommand,
    options: { env: Record<string, string>; cwd: string; onOutput?: (stream: 'stdout' | 'stderr', text: string) => void },
  ): Promise<AgentProcess> {
    installExitHook();
    return new Promise((resolveStart, reject) => {
      const child = spawn(command.command, command.args, { env: options.env, cwd: options.cwd, stdio: ['pipe', 'pipe', 'pipe'] });
      child.once('error', reject);
      child.once('spawn', () => {
        child.off('error', reject);
        child.on('error', () => undefined);
        resolveStart(new AgentProcess(child, options.onOutput));
      });
    });
  }

  get running(): boolean {
    return this.exit === undefined;
  }

  /** Output (stdout and stderr interleaved) of the last 64 KiB. */
  get logs(): string {
    return this.output;
  }

  /** Sends a signal (no-op once exited). */
  signal(signal: NodeJS.Signals): void {
    if (!this.running) return;
    try {
      this.child.kill(signal);
    } catch {
      // raced with exit
    }
  }

  /** SIGTERM, then SIGKILL after `graceMs`; resolves with the exit. */
  async terminate(graceMs: number): Promise<ProcessExit> {
    if (!this.running) return this.exit as ProcessExit;
    this.signal('SIGTERM');
    const timer = setTimeout(() => this.signal('SIGKILL'), Math.max(0, graceMs));
    try {
      return await this.exited;
    } finally {
      clearTimeout(timer);
    }
  }

  /** SIGKILL; resolves with the exit. */
  kill(): Promise<ProcessExit> {
    this.signal('SIGKILL');
    return this.exited;
  }
}
