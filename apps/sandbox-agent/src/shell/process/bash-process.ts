import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { rmSync } from 'node:fs';
import { CommandBodyFile } from '../script/command-body.js';
import { bodyFileLine, SHELL_SETUP, type CommandChunk } from '../script/command-script.js';
import { OutputChannel, type StreamName, type StreamReceiver } from '../output/output-channel.js';
import { ChildrenFile, readProcTable, signalProcesses } from './proc-table.js';

export interface ShellExit {
  code: number | null;
  signal: NodeJS.Signals | null;
}


export interface ShellSpawnOptions {
  shell: string;
  cwd: string;
  env: Record<string, string>;
}

export class ShellStartError extends Error {}

export type { StreamName, StreamReceiver } from '../output/output-channel.js';

/**
 * The persistent `bash --norc --noprofile` (C-AG-5): pipes (never a PTY, so stdout and stderr stay apart), its own
 * process group and session (`detached`) so a whole-group kill never reaches the agent. Non-interactive, with job
 * control switched on by the setup (C-MCP-11). Bytes of the current output channel go to its receiver: the running
 * command, or the background sink between commands; `moveTo` hands the shell a new channel.
 */
export class BashProcess {
  readonly pid: number;
  private readonly child: ChildProcessWithoutNullStreams;
  private channel: OutputChannel;
  private exit: ShellExit | undefined;
  private readonly exitListeners = new Set<(exit: ShellExit) => void>();
  private readonly body = new CommandBodyFile();
  private readonly children: ChildrenFile;

  constructor(options: ShellSpawnOptions, idle: StreamReceiver) {
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
    this.children = new ChildrenFile(this.pid);
    this.child.once('exit', (code, signal) => {
      const exit = { code, signal };
      this.exit = exit;
      for (const listener of [...this.exitListeners]) listener(exit);
      this.exitListeners.clear();
    });
    // A write after bash died fails with EPIPE; the exit event reports the death.
    this.child.stdin.on('error', () => undefined);
    this.channel = new OutputChannel({ stdout: this.child.stdout, stderr: this.child.stderr }, idle);
    this.child.stdin.write(SHELL_SETUP + bodyFileLine(this.body.path, this.jobsPath));
  }

  /** Where the shell's tail appends `jobs -l` (C-MCP-15, protocol.sh `__climcp_inline_jobs_listing`), next to the body file. */
  get jobsPath(): string {
    return `${this.body.path}.jobs`;
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
    this.channel.setReceiver(receiver);
  }

  /**
   * Makes `next` the shell's output channel (the shell itself was already told to write there) and returns the one
   * it leaves behind, whose receiver the caller sets: a detached job keeps it (C-MCP-11).
   */
  moveTo(next: OutputChannel): OutputChannel {
    const previous = this.channel;
    this.channel = next;
    return previous;
  }

  write(text: string): void {
    if (this.isAlive) this.child.stdin.write(text);
  }

  /** One command: its body into the body file, then the short line that makes bash read it (command-script.ts). */
  writeCommand(chunk: CommandChunk): void {
    if (!this.isAlive) return;
    this.body.write(chunk.body);
    this.child.stdin.write(chunk.line);
  }

  pause(stream: StreamName): void {
    this.channel.pause(stream);
  }

  resume(stream: StreamName): void {
    this.channel.resume(stream);
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
    await Promise.race([this.channel.ended, cap]);
    clearTimeout(timer);
  }

  /** `processKey`s of bash's direct children now: the earlier background jobs a command's kill sweep spares. */
  snapshotChildren(): Set<string> {
    return this.children.snapshot();
  }

  /** Signals bash's own process group (bash, and children that share it). */
  signalGroup(signal: NodeJS.Signals): void {
    try {
      process.kill(-this.pid, signal);
    } catch {
      // ESRCH: the group is already empty.
    }
  }

  /**
   * Signals everything in bash's session: bash and every job — under job control (C-MCP-11) each job has a process
   * group of its own, so the group alone would miss them. Processes the user moved to a new session (`setsid`) are
   * not reached, as before. Works after bash died too (the session id outlives its leader).
   */
  signalSession(signal: NodeJS.Signals): void {
    this.signalGroup(signal);
    signalProcesses(readProcTable().filter((entry) => entry.session === this.pid).map((entry) => entry.pid), signal);
  }

  /** Stops listening to the shell's current channel; background jobs that still hold it get EPIPE. */
  dispose(): void {
    this.channel.destroy();
    this.child.stdin.destroy();
    this.body.remove();
    rmSync(this.jobsPath, { force: true });
    // Where the head writes `trap -p ERR` (protocol.sh `__climcp_inline_err_trap_check`).
    rmSync(`${this.body.path}.t`, { force: true });
    this.children.close();
  }
}
