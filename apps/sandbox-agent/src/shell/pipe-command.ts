import type { BackgroundLog } from './jobs/background-log.js';
import type { BashProcess, ShellExit, StreamName, StreamReceiver } from './process/bash-process.js';
import { buildCommandChunk, endMarker, startMarker, type ChunkOptions, type RunMode } from './script/command-script.js';
import { StreamFramer } from './output/stream-framer.js';

/** Destination of a command's bytes on one stream; `push` → false asks for back-pressure until `onDrain`. */
export interface ByteSink {
  push(chunk: Buffer): boolean;
  onDrain(callback: () => void): void;
}

export type CommandEnd =
  /**
   * `stopped`: the stop trap cut the user's text short (the tail adds 256 to the status then, protocol.sh
   * `__climcp_f`); false when it returned on its own, even if a stop signal came right after.
   */
  | { kind: 'finished'; exitCode: number; stopped: boolean }
  /** Bash exited during the command; `started` = the start marker was seen (the user's text began to run). */
  | { kind: 'shell-exited'; exit: ShellExit; started: boolean };

/** How long to keep reading a dead shell's pipes for the command's last bytes (background jobs may hold them). */
const DRAIN_CAP_MS = 50;

/**
 * One command on the persistent shell: writes the framed command, routes bytes through the two framers, and ends
 * when both end markers arrived (C-AG-6) — or when bash exits instead (C-AG-8).
 */
export class PipeCommand implements StreamReceiver {
  readonly done: Promise<CommandEnd>;
  private resolveDone!: (end: CommandEnd) => void;
  private ended = false;
  private readonly framers: Record<StreamName, StreamFramer>;
  private readonly paused: Record<StreamName, boolean> = { stdout: false, stderr: false };
  private readonly unsubscribeExit: () => void;
  private startWaiters: Array<() => void> = [];

  constructor(
    private readonly shell: BashProcess,
    nonce: string,
    private readonly sinks: Record<StreamName, ByteSink>,
    background: BackgroundLog,
  ) {
    this.done = new Promise((resolve) => {
      this.resolveDone = resolve;
    });
    const start = startMarker(nonce);
    const end = endMarker(nonce);
    const output = (stream: StreamName) => ({
      background: (bytes: Buffer) => background.write(bytes),
      body: (bytes: Buffer) => this.deliver(stream, bytes),
    });
    this.framers = {
      stdout: new StreamFramer(start, end, true, output('stdout')),
      stderr: new StreamFramer(start, end, false, output('stderr')),
    };
    this.unsubscribeExit = shell.onExit((exit) => void this.onShellExit(exit));
  }

  get isDone(): boolean {
    return this.ended;
  }

  /** The mode the shell runs the command in (C-MCP-11), once its start marker was seen. */
  get mode(): RunMode | undefined {
    return this.framers.stdout.mode as RunMode | undefined;
  }

  /** Whether the user's text began to run (a start marker was seen). */
  get started(): boolean {
    return this.framers.stdout.started || this.framers.stderr.started;
  }

  begin(command: string, nonce: string, options: ChunkOptions = {}): void {
    this.shell.setReceiver(this);
    this.shell.writeCommand(buildCommandChunk(command, nonce, options));
  }

  /** Resolves once the start marker was seen, or after `ms` (whichever comes first). */
  startedWithin(ms: number): Promise<void> {
    if (this.started) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      function done(): void {
        clearTimeout(timer);
        resolve();
      }
      this.startWaiters.push(done);
    });
  }

  stdout(chunk: Buffer): void {
    this.framers.stdout.push(chunk);
    this.noticeStart();
    this.checkFinished();
  }

  stderr(chunk: Buffer): void {
    this.framers.stderr.push(chunk);
    this.noticeStart();
    this.checkFinished();
  }

  private noticeStart(): void {
    if (this.startWaiters.length > 0 && this.started) this.releaseStartWaiters();
  }

  private releaseStartWaiters(): void {
    const waiters = this.startWaiters;
    this.startWaiters = [];
    for (const waiter of waiters) waiter();
  }

  private deliver(stream: StreamName, bytes: Buffer): void {
    if (this.sinks[stream].push(bytes) || this.paused[stream]) return;
    // The spill file is congested: stop reading this pipe (bash blocks on write) until it drains.
    this.paused[stream] = true;
    this.shell.pause(stream);
    this.sinks[stream].onDrain(() => {
      this.paused[stream] = false;
      this.shell.resume(stream);
    });
  }

  private checkFinished(): void {
    const { stdout, stderr } = this.framers;
    if (this.ended || !stdout.done || !stderr.done) return;
    const status = stdout.exitCode ?? 1;
    this.finish({ kind: 'finished', exitCode: status % 256, stopped: status >= 256 });
  }

  private async onShellExit(exit: ShellExit): Promise<void> {
    if (this.ended) return;
    await this.shell.drained(DRAIN_CAP_MS);
    if (this.ended) return;
    this.framers.stdout.flush();
    this.framers.stderr.flush();
    this.checkFinished();
    if (!this.ended) this.finish({ kind: 'shell-exited', exit, started: this.started });
  }

  private finish(end: CommandEnd): void {
    this.ended = true;
    this.releaseStartWaiters();
    this.unsubscribeExit();
    for (const stream of ['stdout', 'stderr'] as const) {
      if (this.paused[stream]) this.shell.resume(stream);
    }
    this.resolveDone(end);
  }
}
