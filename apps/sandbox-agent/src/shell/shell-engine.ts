import { RUNNING_EXIT_CODE } from '@cli-mcp/agent-client';
import { BackgroundJobs } from './jobs/background-jobs.js';
import { commandShape } from './script/command-shape.js';
import { newNonce, STOP_LIST_SIGNAL } from './script/command-script.js';
import { removeBodyDirectory } from './script/command-body.js';
import { removeFifoDirectory, type FifoChannel } from './jobs/fifo-channel.js';
import { JobHandoff } from './jobs/job-handoff.js';
import { JobLedger } from './jobs/job-ledger.js';
import { heldEnd, onlyKeptWaits, runningResponse, waitTargets } from './jobs/yield-responses.js';
import { BUSY_REASONS, decideAtYield, runsShell } from './jobs/yield-point.js';
import { readFileSync, rmSync } from 'node:fs';
import { constants } from 'node:os';
import { join } from 'node:path';
import type { ExecResponse } from '@cli-mcp/agent-client';
import type { AgentConfig } from '../config/agent-config.js';
import type { AgentLog } from '../logging/agent-logger.js';
import { BackgroundLog } from './jobs/background-log.js';
import type { BashProcess, StreamName } from './process/bash-process.js';
import { stopCommand, type StopOutcome } from './process/command-stopper.js';
import { buildExecResponse, CANCEL_EXIT_CODE, TIMEOUT_EXIT_CODE } from './output/command-result.js';
import { PipeCommand, type CommandEnd } from './pipe-command.js';
import { PipePhases, type StopReason } from './pipe-phase.js';
import { groupHasStopped, ignoresHangup, readProcTable } from './process/proc-table.js';
import { selectCommandTree } from './process/process-tree.js';
import { SpillStore } from './output/spill-store.js';
import { ShellSupervisor, type ShellHealth } from './process/shell-supervisor.js';
import { StreamSink, type SinkResult } from './output/stream-sink.js';
import { captureShellState } from './shell-state.js';
import { removeTtyScratch, runTtyCommand } from './tty-command.js';

export interface EngineJob {
  command: string;
  timeoutMs: number;
  tty: boolean;
  /** Epoch ms of the yield point (C-MCP-11); undefined = never. */
  yieldAt?: number;
}

/** Answers the caller before the command ends (it keeps the shell past its yield point). */
export type EarlyResponder = (response: ExecResponse) => void;

export type { StopReason } from './pipe-phase.js';

interface PipeContext {
  job: EngineJob;
  signal: AbortSignal;
  deadline: number;
  startedAt: number;
  /** Epoch ms of the start, dating the jobs this command starts (C-MCP-15). */
  startedEpoch: number;
  respond: EarlyResponder;
}


type PipeAttempt =
  | { kind: 'ended'; end: CommandEnd; stopReason: StopReason | undefined; stdout: SinkResult; stderr: SinkResult; interrupted: boolean }
  | { kind: 'detached'; pgid: number; fifo: FifoChannel; sinks: Record<StreamName, StreamSink> };

/**
 * Runs commands in the persistent shell (C-AG-5…C-AG-8) or, opt-in, in a pseudo-terminal (C-AG-11). One command
 * at a time — the caller (ExecQueue) serialises. The shell's life (death, replacement, reset notice) is the
 * ShellSupervisor's.
 */
export class ShellEngine {
  private readonly supervisor: ShellSupervisor;
  private readonly background: BackgroundLog;
  private readonly spill: SpillStore | undefined;
  private readonly jobs: BackgroundJobs;
  private readonly handoff: JobHandoff;
  /** The shell's jobs and the ends not reported yet (C-MCP-15). */
  private readonly ledger = new JobLedger();
  /** Output sinks of the running command (for `/output`); undefined between commands. */
  private live: Record<StreamName, StreamSink> | undefined;
  /** Output file number of the running command, once it has files. */
  private liveSeq: number | undefined;
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
    this.jobs = new BackgroundJobs(config.killGraceMs, log, () => void this.spill?.enforceRetention());
    this.handoff = new JobHandoff(this.background, this.jobs, this.idleReceiver, log);
  }

  /** Starts the first shell right away, in parallel with the HTTP server's start. */
  start(): void {
    this.supervisor.start();
  }

  health(): ShellHealth {
    return this.supervisor.health();
  }

  async run(job: EngineJob, signal: AbortSignal, respond: EarlyResponder = () => undefined): Promise<ExecResponse> {
    const startedAt = performance.now();
    const startedEpoch = Date.now();
    const deadline = Date.now() + job.timeoutMs;
    const supervisor = this.supervisor;
    supervisor.commandRunning = true;
    try {
      let stateReset = supervisor.takeReset();
      if (stateReset) this.ledger.clear();
      let shell = supervisor.acquire();
      if (job.tty) return this.withEnded(await this.runTty(shell, job, signal, deadline, startedAt, stateReset));
      // The answer at the yield point of a command that keeps the shell; its final result reaches nobody (C-MCP-15).
      let early: ExecResponse | undefined;
      const respondEarly = (response: ExecResponse): void => {
        early = this.withEnded(response);
        respond(early);
      };
      const context = { job, signal, deadline, startedAt, startedEpoch, respond: respondEarly };
      let attempt = await this.runPipe(shell, context, stateReset);
      if (attempt.kind === 'ended' && attempt.end.kind === 'shell-exited' && !attempt.end.started && attempt.stopReason === undefined) {
        // Bash died before the command began (it was killed while idle and we raced its exit): nothing of the
        // command ran, so run it once in a fresh shell.
        supervisor.retire(shell);
        supervisor.takeReset();
        stateReset = true;
        shell = supervisor.acquire();
        attempt = await this.runPipe(shell, context, stateReset);
      }
      if (attempt.kind === 'detached') return this.withEnded(await this.detach(shell, attempt, context, stateReset));
      if (attempt.end.kind === 'shell-exited') {
        supervisor.retire(shell);
        this.ledger.clear();
      }
      if (attempt.interrupted) {
        // A lone `wait` interrupted at the yield point: the jobs it waited for keep running (C-MCP-11).
        return this.withEnded({ ...this.ended(attempt, startedAt, stateReset), exit_code: RUNNING_EXIT_CODE, running: true, yield_mode: 'waiting' });
      }
      const response = this.ended(attempt, startedAt, stateReset);
      this.log.debug({ exit_code: response.exit_code, duration_ms: response.duration_ms, stdout_bytes: response.stdout_bytes,
        stderr_bytes: response.stderr_bytes, stop: attempt.stopReason }, 'command finished');
      if (early === undefined) return this.withEnded(response);
      // It held the shell past its yield point (C-MCP-15): its end and later output go to the next result.
      this.ledger.noteHeldEnded(heldEnd(early, response));
      return response;
    } finally {
      supervisor.commandRunning = false;
      this.live = undefined;
    }
  }

  private ended(attempt: PipeAttempt & { kind: 'ended' }, startedAt: number, stateReset: boolean): ExecResponse {
    return buildExecResponse({
      stdout: attempt.stdout,
      stderr: attempt.stderr,
      exitCode: exitCodeOf(attempt.end, attempt.stopReason),
      durationMs: performance.now() - startedAt,
      timedOut: attempt.stopReason === 'timeout',
      cancelled: attempt.stopReason === 'cancel',
      stateReset,
    });
  }

  /** The ends the previous results did not report yet lead this one (C-MCP-15), each reported once. */
  private withEnded(response: ExecResponse): ExecResponse {
    const ended = this.ledger.take();
    return ended === undefined ? response : { ...response, ended_jobs: ended };
  }

  /** What the tails listed since the last look (protocol.sh `__climcp_inline_jobs_listing`); the file is read and removed. */
  private absorbJobs(shell: BashProcess, startedEpoch: number): void {
    let listing: string;
    try {
      listing = readFileSync(shell.jobsPath, 'utf8');
    } catch {
      return; // No tail listed jobs: the common path, one failed open.
    }
    rmSync(shell.jobsPath, { force: true });
    this.ledger.absorb(listing, startedEpoch);
  }

  /** The stopped command becomes job `%N` of the shell; the call answers with its output so far (C-MCP-11). */
  private async detach(shell: BashProcess, attempt: PipeAttempt & { kind: 'detached' }, context: PipeContext,
    stateReset: boolean): Promise<ExecResponse> {
    const { job, deadline, startedAt } = context;
    const response = runningResponse(attempt.sinks, performance.now() - startedAt, { mode: 'job' }, stateReset);
    const seq = this.liveSeq;
    if (seq !== undefined) this.spill?.pin(seq);
    const detached = await this.handoff.complete({ shell, pgid: attempt.pgid, fifo: attempt.fifo, sinks: attempt.sinks,
      deadline, timeoutSeconds: job.timeoutMs / 1000, onEnd: () => {
        if (seq !== undefined) this.spill?.unpin(seq);
      } });
    this.ledger.noteDetached(detached.spec, detached.pid, context.startedEpoch,
      { stdout: response.stdout_file, stderr: response.stderr_file });
    return { ...response, job: detached.spec, job_pid: detached.pid };
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
    this.jobs.shutdown();
    this.background.close();
    removeTtyScratch();
    removeFifoDirectory();
    removeBodyDirectory();
  }

  private async runPipe(shell: BashProcess, context: PipeContext, stateReset: boolean): Promise<PipeAttempt> {
    const { job, signal, deadline } = context;
    const nonce = newNonce();
    const preexisting = shell.snapshotChildren();
    const sinks = this.newSinks();
    const command = new PipeCommand(shell, nonce, sinks, this.background);
    // The shape matters only at a yield point (C-MCP-11); without one every command simply runs in the shell.
    const yieldAt = job.yieldAt !== undefined && job.yieldAt < deadline ? job.yieldAt : undefined;
    const jobs = { listJobs: this.ledger.watching, keptJobs: this.ledger.takeKept(),
      keptWait: onlyKeptWaits(job.command, (spec) => this.ledger.hasKeptStatus(spec)) };
    command.begin(job.command, nonce, yieldAt === undefined ? jobs : { shape: commandShape(job.command), ...jobs });

    // The command's phase (pipe-phase.ts); timers, the abort signal and the yield point only ask it to move.
    const phases = new PipePhases();
    let stopping: Promise<StopOutcome> | undefined;
    let detaching: { pgid: number; fifo: FifoChannel } | undefined;
    const halt = (reason: StopReason): Promise<StopOutcome> => {
      // First tell the shell to abandon the rest of the command list once its running child dies (see
      // command-script.ts); then stop the command's processes.
      signalShell(shell.pid, STOP_LIST_SIGNAL);
      const shellIgnoresHup = ignoresHangup(shell.pid);
      return stopCommand({
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
    const stop = (reason: StopReason): void => {
      if (command.isDone || !phases.can('stopping')) return;
      phases.stop(reason);
      // A stop that comes before bash began the command (a cancel right after the request arrived) waits for its
      // start marker, bounded by `startWaitMs`: the signal would otherwise reach the previous command's trap,
      // outside any loop, and the kill sweep would find none of the command's processes yet. A command that ended
      // meanwhile (it never started: its shell died) needs no stop, and the shell must not get the signal later.
      stopping = command.started
        ? halt(reason)
        : command.startedWithin(this.config.startWaitMs).then(() => (command.isDone ? 'finished' : halt(reason)));
    };
    const atYield = async (): Promise<void> => {
      if (command.isDone || !phases.is('running')) return;
      const action = decideAtYield({ mode: command.mode, shellPid: shell.pid, preexisting, table: readProcTable(),
        shellReplaced: !runsShell(shell.pid) });
      if (action.kind === 'interrupt') {
        phases.move('interrupted');
        signalShell(shell.pid, STOP_LIST_SIGNAL);
        return;
      }
      if (action.kind === 'busy') {
        // A `wait` held in the shell names the jobs it waits for (C-MCP-15).
        const waited = waitTargets(job.command);
        phases.move('held');
        context.respond(runningResponse(sinks, performance.now() - context.startedAt,
          { mode: 'shell', reason: action.reason, ...(waited === undefined ? {} : { job: waited }) }, stateReset));
        return;
      }
      phases.move('preparing');
      let fifo: FifoChannel;
      try {
        fifo = await this.handoff.prepare();
      } catch (err) {
        this.log.warn({ error: (err as Error).message }, 'cannot create an output channel for a job');
        if (phases.is('preparing')) phases.move('held');
        context.respond(runningResponse(sinks, performance.now() - context.startedAt, { mode: 'shell', reason: BUSY_REASONS.noChannel }, stateReset));
        return;
      }
      // A stop or the end may have overtaken the preparation; a group already gone leaves the command running.
      if (!phases.is('preparing') || command.isDone || !signalGroup(action.pgid, 'SIGSTOP')) {
        if (phases.is('preparing')) phases.move('running');
        fifo.abandon();
        return;
      }
      phases.move('detaching');
      detaching = { pgid: action.pgid, fifo };
    };
    const timer = setTimeout(() => stop('timeout'), Math.max(0, deadline - Date.now()));
    const yieldTimer = yieldAt === undefined ? undefined : setTimeout(() => void atYield(), Math.max(0, yieldAt - Date.now()));
    const onAbort = (): void => stop('cancel');
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });

    const end = await command.done;
    const before = phases.phase;
    phases.move('ended');
    this.absorbJobs(shell, context.startedEpoch);
    clearTimeout(timer);
    clearTimeout(yieldTimer);
    signal.removeEventListener('abort', onAbort);
    await stopping;
    const stopReason = phases.stopReason;
    const stopped = detaching && before === 'detaching' && end.kind === 'finished' && groupHasStopped(detaching.pgid);
    if (detaching && stopped) return { kind: 'detached', pgid: detaching.pgid, fifo: detaching.fifo, sinks };
    detaching?.fifo.abandon();
    shell.setReceiver(this.idleReceiver);
    const [stdout, stderr] = await Promise.all([sinks.stdout.finish(), sinks.stderr.finish()]);
    if (stdout.file || stderr.file) void this.spill?.enforceRetention();
    // A lone `wait` counts as interrupted only if the signal cut it short: one that returned on its own as the yield
    // point came (its job ended then) consumed the job, and its status is the answer (C-MCP-11, C-MCP-15).
    const interrupted = phases.passedThrough('interrupted') && end.kind === 'finished' && end.stopped;
    return { kind: 'ended', end, stopReason, stdout, stderr, interrupted };
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
    const spill = this.spill;
    this.liveSeq = undefined;
    const opener = (stream: StreamName) => (spill ? () => spill.open((this.liveSeq ??= spill.nextSeq()), stream) : undefined);
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

/** Signals a process group; false when it no longer exists. */
function signalGroup(pgid: number, signal: NodeJS.Signals): boolean {
  try {
    process.kill(-pgid, signal);
    return true;
  } catch {
    return false;
  }
}

function signalShell(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(pid, signal);
  } catch {
    // The shell is already gone: the command is ending anyway.
  }
}
