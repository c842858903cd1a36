import { newNonce, STOP_LIST_SIGNAL } from './command-script.js';
import { constants } from 'node:os';
import { join } from 'node:path';
import type { ExecResponse } from '@cli-mcp/agent-client';
import type { AgentConfig } from '../config/agent-config.js';
import type { AgentLog } from '../logging/agent-logger.js';
import { BackgroundLog } from './background-log.js';
import type { BashProcess, StreamName } from './bash-process.js';
import { stopCommand, type StopOutcome } from './command-stopper.js';
import { buildExecResponse, CANCEL_EXIT_CODE, TIMEOUT_EXIT_CODE } from './command-result.js';
import { PipeCommand, type CommandEnd } from './pipe-command.js';
import { ignoresHangup, readProcTable, snapshotChildren } from './proc-table.js';
import { selectCommandTree } from './process-tree.js';
import { SpillStore } from './spill-store.js';
import { ShellSupervisor, type ShellHealth } from './shell-supervisor.js';
import { StreamSink, type SinkResult } from './stream-sink.js';
import { captureShellState } from './shell-state.js';
import { removeTtyScratch, runTtyCommand } from './tty-command.js';

export interface EngineJob {
  command: string;
  timeoutMs: number;
  tty: boolean;
}

export type StopReason = 'timeout' | 'cancel';

interface PipeAttempt {
  end: CommandEnd;
  stopReason: StopReason | undefined;
  stdout: SinkResult;
  stderr: SinkResult;
}

/**
 * Runs commands in the persistent shell (C-AG-5…C-AG-8) or, opt-in, in a pseudo-terminal (C-AG-11). One command
 * at a time — the caller (ExecQueue) serialises. The shell's life (death, replacement, reset notice) is the
 * ShellSupervisor's.
 */
export class ShellEngine {
  private readonly supervisor: ShellSupervisor;
  private readonly background: BackgroundLog;
  private readonly spill: SpillStore | undefined;
  /** Output sinks of the running command (for `/output`); undefined between commands. */
  private live: Record<StreamName, StreamSink> | undefined;
  /** Process group of the running tty command, killed by a hard shutdown. */
  private ttyGroup: number | undefined;
  /** Between commands, whatever the shell prints belongs to background jobs. */
  private readonly idleReceiver = {
    stdout: (chunk: Buffer) => this.background.write(chunk),
    stderr: (chunk: Buffer) => this.background.write(chunk),
  };

  constructor(private readonly config: AgentConfig, private readonly log: AgentLog) {
    this.background = new BackgroundLog(config.outputDir === null ? null : join(config.outputDir, 'background.log'));
    this.spill = config.outputDir === null ? undefined : new SpillStore(config.outputDir, config.spill, log);
    this.supervisor = new ShellSupervisor({ shell: config.shell, cwd: config.workdir, env: config.shellEnv },
      this.idleReceiver, log);
  }

  /** Starts the first shell right away, in parallel with the HTTP server's start. */
  start(): void {
    this.supervisor.start();
  }

  health(): ShellHealth {
    return this.supervisor.health();
  }

  async run(job: EngineJob, signal: AbortSignal): Promise<ExecResponse> {
    const startedAt = performance.now();
    const deadline = Date.now() + job.timeoutMs;
    const supervisor = this.supervisor;
    supervisor.commandRunning = true;
    try {
      let stateReset = supervisor.takeReset();
      let shell = supervisor.acquire();
      if (job.tty) return await this.runTty(shell, job, signal, deadline, startedAt, stateReset);
      let attempt = await this.runPipe(shell, job, signal, deadline);
      if (attempt.end.kind === 'shell-exited' && !attempt.end.started && attempt.stopReason === undefined) {
        // Bash died before the command began (it was killed while idle and we raced its exit): nothing of the
        // command ran, so run it once in a fresh shell.
        supervisor.retire(shell);
        supervisor.takeReset();
        stateReset = true;
        shell = supervisor.acquire();
        attempt = await this.runPipe(shell, job, signal, deadline);
      }
      if (attempt.end.kind === 'shell-exited') supervisor.retire(shell);
      const response = buildExecResponse({
        stdout: attempt.stdout,
        stderr: attempt.stderr,
        exitCode: exitCodeOf(attempt.end, attempt.stopReason),
        durationMs: performance.now() - startedAt,
        timedOut: attempt.stopReason === 'timeout',
        cancelled: attempt.stopReason === 'cancel',
        stateReset,
      });
      this.log.debug({ exit_code: response.exit_code, duration_ms: response.duration_ms, stdout_bytes: response.stdout_bytes,
        stderr_bytes: response.stderr_bytes, stop: attempt.stopReason }, 'command finished');
      return response;
    } finally {
      supervisor.commandRunning = false;
      this.live = undefined;
    }
  }

  /** The running command's latest output and byte counts (C-MCP-10 progress); undefined between commands. */
  peek(maxBytes: number): Record<StreamName, { text: string; bytes: number }> | undefined {
    const live = this.live;
    return live && { stdout: live.stdout.peek(maxBytes), stderr: live.stderr.peek(maxBytes) };
  }

  /** C-AG-10: kill the shell's whole process group (and a running tty command's); no respawn afterwards. */
  shutdown(): void {
    this.supervisor.shutdown();
    if (this.ttyGroup !== undefined) {
      try {
        process.kill(-this.ttyGroup, 'SIGKILL');
      } catch {
        // Already gone.
      }
    }
    this.background.close();
    removeTtyScratch();
  }

  private async runPipe(shell: BashProcess, job: EngineJob, signal: AbortSignal, deadline: number): Promise<PipeAttempt> {
    const nonce = newNonce();
    const preexisting = snapshotChildren(shell.pid);
    const sinks = this.newSinks();
    const command = new PipeCommand(shell, nonce, sinks, this.background);
    command.begin(job.command, nonce);

    let stopReason: StopReason | undefined;
    let stopping: Promise<StopOutcome> | undefined;
    const stop = (reason: StopReason): void => {
      if (stopReason || command.isDone) return;
      stopReason = reason;
      // First tell the shell to abandon the rest of the command list once its running child dies (see
      // command-script.ts); then stop the command's processes.
      signalShell(shell.pid, STOP_LIST_SIGNAL);
      const shellIgnoresHup = ignoresHangup(shell.pid);
      stopping = stopCommand({
        select: () => selectCommandTree({ table: readProcTable(), rootPid: shell.pid, includeRoot: false, preexisting,
          detachedByNohup: (pid) => !shellIgnoresHup && ignoresHangup(pid) }),
        killShell: () => {
          this.log.warn({ reason }, 'shell did not stop the command; replacing the shell');
          shell.signalGroup('SIGKILL');
        },
        graceMs: this.config.killGraceMs,
        settleMs: this.config.killSettleMs,
      }, command.done);
    };
    const timer = setTimeout(() => stop('timeout'), Math.max(0, deadline - Date.now()));
    const onAbort = (): void => stop('cancel');
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });

    const end = await command.done;
    clearTimeout(timer);
    signal.removeEventListener('abort', onAbort);
    await stopping;
    shell.setReceiver(this.idleReceiver);
    const [stdout, stderr] = await Promise.all([sinks.stdout.finish(), sinks.stderr.finish()]);
    if (stdout.file || stderr.file) void this.spill?.enforceRetention();
    return { end, stopReason, stdout, stderr };
  }

  private async runTty(shell: BashProcess, job: EngineJob, signal: AbortSignal, deadline: number, startedAt: number,
    stateReset: boolean): Promise<ExecResponse> {
    const state = await captureShellState(shell, this.background, { cwd: this.config.workdir, env: this.config.shellEnv });
    const sinks = this.newSinks();
    const end = await runTtyCommand({ shell: this.config.shell, command: job.command, state, deadline, signal,
      sink: sinks.stdout, graceMs: this.config.killGraceMs, settleMs: this.config.killSettleMs,
      onStart: (pid) => {
        this.ttyGroup = pid;
      } }).finally(() => {
      this.ttyGroup = undefined;
    });
    shell.setReceiver(this.idleReceiver);
    const [stdout, stderr] = await Promise.all([sinks.stdout.finish(), sinks.stderr.finish()]);
    if (stdout.file) void this.spill?.enforceRetention();
    return buildExecResponse({
      stdout, stderr,
      exitCode: end.stopReason === 'timeout' ? TIMEOUT_EXIT_CODE : end.stopReason === 'cancel' ? CANCEL_EXIT_CODE : end.exitCode,
      durationMs: performance.now() - startedAt,
      timedOut: end.stopReason === 'timeout',
      cancelled: end.stopReason === 'cancel',
      stateReset,
    });
  }

  private newSinks(): Record<StreamName, StreamSink> {
    let seq: number | undefined;
    const spill = this.spill;
    const opener = (stream: StreamName) => (spill ? () => spill.open((seq ??= spill.nextSeq()), stream) : undefined);
    const threshold = spill?.thresholdBytes ?? Number.MAX_SAFE_INTEGER;
    this.live = {
      stdout: new StreamSink(this.config.outputBufferBytes, threshold, opener('stdout')),
      stderr: new StreamSink(this.config.outputBufferBytes, threshold, opener('stderr')),
    };
    return this.live;
  }

}

function exitCodeOf(end: CommandEnd, stopReason: StopReason | undefined): number {
  if (stopReason === 'timeout') return TIMEOUT_EXIT_CODE;
  if (stopReason === 'cancel') return CANCEL_EXIT_CODE;
  if (end.kind === 'finished') return end.exitCode;
  if (end.exit.code !== null) return end.exit.code;
  const signalNumber = end.exit.signal ? constants.signals[end.exit.signal] : undefined;
  return 128 + (signalNumber ?? 0);
}

function signalShell(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(pid, signal);
  } catch {
    // The shell is already gone: the command is ending anyway.
  }
}
