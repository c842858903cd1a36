import type { AgentLog } from '../../logging/agent-logger.js';
import type { BackgroundJobs } from './background-jobs.js';
import type { BackgroundLog } from './background-log.js';
import type { BashProcess, StreamReceiver } from '../process/bash-process.js';
import { buildMoveChannelLine, moveMarker, newNonce } from '../script/command-script.js';
import { settlesWithin } from '../process/command-stopper.js';
import { createFifoChannel, type FifoChannel } from './fifo-channel.js';
import { MarkerScanner } from '../output/marker-scanner.js';
import type { StreamName } from '../output/output-channel.js';
import { PipeCommand } from '../pipe-command.js';
import { ByteCollector } from '../shell-state.js';
import type { StreamSink } from '../output/stream-sink.js';
import { parseJobLine } from './yield-point.js';

const STEP_TIMEOUT_MS = 5_000;

export interface Detached {
  spec: string;
  pid: number;
}

/**
 * Turns a command stopped at its yield point into a background job of the session shell (C-MCP-11). Before the stop:
 * a fresh output channel (`prepare`). After the command's tail ran (the shell is free, the job stopped): ask bash for
 * the job's number and pid (`jobs -l %+`), hand the job the shell's current output streams, move the shell to the
 * new channel and continue the job with `bg` (`__climcp_y`, one line), wait for the shell to say it writes there.
 */
export class JobHandoff {
  constructor(
    private readonly background: BackgroundLog,
    private readonly jobs: BackgroundJobs,
    private readonly idle: StreamReceiver,
    private readonly log: AgentLog,
  ) {}

  prepare(): Promise<FifoChannel> {
    return createFifoChannel({ stdout: (b) => this.background.write(b), stderr: (b) => this.background.write(b) });
  }

  async complete(input: {
    shell: BashProcess;
    pgid: number;
    fifo: FifoChannel;
    sinks: Record<StreamName, StreamSink>;
    deadline: number;
    timeoutSeconds: number;
    onEnd: () => void;
  }): Promise<Detached> {
    const { shell, fifo } = input;
    const job = (await this.queryJob(shell)) ?? { spec: '%+', pid: input.pgid };
    const moved = this.awaitMarker(fifo, newNonce());
    const left = shell.moveTo(fifo.channel);
    this.jobs.adopt({ ...job, pgid: input.pgid, shellPid: shell.pid, channel: left, sinks: input.sinks,
      deadline: input.deadline, timeoutSeconds: input.timeoutSeconds, onEnd: input.onEnd });
    shell.write(buildMoveChannelLine(fifo.paths, moved.nonce));
    if (!(await settlesWithin(moved.seen, STEP_TIMEOUT_MS))) this.log.warn({ job: job.spec }, 'shell did not confirm its new output channel');
    fifo.release();
    fifo.channel.setReceiver(this.idle);
    return job;
  }

  private async queryJob(shell: BashProcess): Promise<Detached | undefined> {
    const stdout = new ByteCollector();
    const nonce = newNonce();
    const command = new PipeCommand(shell, nonce, { stdout, stderr: new ByteCollector() }, this.background);
    command.begin('builtin jobs -l %+', nonce, { internal: true });
    if (!(await settlesWithin(command.done, STEP_TIMEOUT_MS))) return undefined;
    return parseJobLine(Buffer.concat(stdout.chunks).toString('utf8'));
  }

  /** The move marker on the new channel's stdout; anything else there belongs to no command. */
  private awaitMarker(fifo: FifoChannel, nonce: string): { nonce: string; seen: Promise<void> } {
    const scanner = new MarkerScanner(moveMarker(nonce));
    let resolve!: () => void;
    const seen = new Promise<void>((res) => {
      resolve = res;
    });
    fifo.channel.setReceiver({
      stdout: (chunk) => {
        const result = scanner.push(chunk);
        this.background.write(result.before);
        if (result.found) {
          this.background.write(result.after);
          resolve();
        }
      },
      stderr: (chunk) => this.background.write(chunk),
    });
    return { nonce, seen };
  }
}
