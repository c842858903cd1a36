import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { SHELL_SETUP } from './command-script.js';

export interface ShellExit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface StreamReceiver {
  stdout(chunk: Buffer): void;
  stderr(chunk: Buffer): void;
}

export interface ShellSpawnOptions {
  shell: string;
  cwd: string;
  env: Record<string, string>;
}

export class ShellStartError extends Error {}

export type StreamName = 'stdout' | 'stderr';

/**
 * The persistent `bash --norc --noprofile` (C-AG-5): pipes (never a PTY, so stdout and stderr stay apart), its own
 * process group (`detached`) so a whole-group kill never reaches the agent. Non-interactive, so job control is off.
 * Bytes go to the current receiver: the running command, or the background sink between commands.
 */
export class BashProcess {
  readonly pid: number;
  private readonly child: ChildProcessWithoutNullStreams;
  private receiver: StreamReceiver;
  private exit: ShellExit | undefined;
  private readonly exitListeners = new Set<(exit: ShellExit) => void>();
  private readonly ended: Promise<void>;

  constructor(options: ShellSpawnOptions, idle: StreamReceiver) {
    this.receiver = idle;
    this.child = spawn(options.shell, ['--norc', '--noprofile'], {
      cwd: options.cwd,
      env: options.env,
      stdio: ['pipe', 'pipe', 'pipe'],
      detached: true,
    });
    // An unusable shell path fails synchronously with an undefined pid; 'error' follows on the next tick.
    this.child.on('error', () => undefined);
    if (this.child.pid === undefined) throw new ShellStartError(`cannot start shell ${JSON.stringify(options.shell)}`);
    this.pid = this.child.pid;
    this.child.once('exit', (code, signal) => {
      const exit = { code, signal };
      this.exit = exit;
      for (const listener of [...this.exitListeners]) listener(exit);
      this.exitListeners.clear();
    });
    // A write after bash died fails with EPIPE; the exit event reports the death.
    this.child.stdin.on('error', () => undefined);
    this.child.stdout.on('data', (chunk: Buffer) => this.receiver.stdout(chunk));
    this.child.stderr.on('data', (chunk: Buffer) => this.receiver.stderr(chunk));
    const endOf = (stream: NodeJS.ReadableStream): Promise<void> =>
      new Promise((resolve) => {
        stream.once('end', resolve);
        stream.once('close', resolve);
      });
    this.ended = Promise.all([endOf(this.child.stdout), endOf(this.child.stderr)]).then(() => undefined);
    this.child.stdin.write(SHELL_SETUP);
  }

  get isAlive(): boolean {
    return this.exit === undefined;
  }

  /** Calls `listener` once when bash exits (at once if it already has); returns an unsubscribe function. */
  onExit(listener: (exit: ShellExit) => void): () => void {
    const exit = this.exit;
    if (exit) {
      queueMicrotask(() => listener(exit));
      return () => undefined;
    }
    this.exitListeners.add(listener);
    return () => this.exitListeners.delete(listener);
  }

  setReceiver(receiver: StreamReceiver): void {
    this.receiver = receiver;
  }

  write(text: string): void {
    if (this.isAlive) this.child.stdin.write(text);
  }

  pause(stream: StreamName): void {
    this.child[stream].pause();
  }

  resume(stream: StreamName): void {
    this.child[stream].resume();
  }

  /**
   * After bash exited: resolves once both pipes reached EOF, or after `capMs` when background jobs still hold them
   * open — so the command's last bytes (already in the pipe when bash died) are read before its result is built.
   */
  async drained(capMs: number): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const cap = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, capMs);
    });
    await Promise.race([this.ended, cap]);
    clearTimeout(timer);
  }

  /** Signals bash's whole process group (bash, its jobs, the running command). */
  signalGroup(signal: NodeJS.Signals): void {
    try {
      process.kill(-this.pid, signal);
    } catch {
      // ESRCH: the group is already empty.
    }
  }

  /** Stops listening to the old pipes; background jobs that still hold them get EPIPE. */
  dispose(): void {
    this.child.stdout.removeAllListeners('data');
    this.child.stderr.removeAllListeners('data');
    this.child.stdout.destroy();
    this.child.stderr.destroy();
    this.child.stdin.destroy();
  }
}
