import type { AgentLog } from '../../logging/agent-logger.js';
import { settlesWithin } from '../process/command-stopper.js';
import type { OutputChannel, StreamName } from '../output/output-channel.js';
import { readProcTable, signalProcesses } from '../process/proc-table.js';
import type { StreamSink } from '../output/stream-sink.js';

export interface DetachedJob {
  /** `%N` as the shell knows it. */
  spec: string;
  pid: number;
  pgid: number;
  shellPid: number;
  /** The output channel the job kept; it ends when every process holding it is gone. */
  channel: OutputChannel;
  sinks: Record<StreamName, StreamSink>;
  /** Epoch ms of the job's own timeout (C-AG-7), from when the command started. */
  deadline: number;
  timeoutSeconds: number;
  /** Called once the job's output ended (its files are complete). */
  onEnd?: () => void;
}

interface Tracked extends DetachedJob {
  timer: NodeJS.Timeout;
}

/**
 * Commands detached at their yield point (C-MCP-11), now background jobs of the session shell: their output keeps
 * flowing into the same sinks (and so into their files), and their own timeout still applies — at the deadline the
 * job's processes are killed and bash records 137 for it, which `wait %N` reports. Bash owns the job itself
 * (`jobs`, `wait`, `kill %N` work as usual); this registry only owns the output and the deadline.
 */
export class BackgroundJobs {
  private readonly jobs = new Set<Tracked>();

  constructor(private readonly graceMs: number, private readonly log: AgentLog, private readonly onFinished: () => void) {}

  get size(): number {
    return this.jobs.size;
  }

  adopt(job: DetachedJob): void {
    const tracked: Tracked = { ...job, timer: setTimeout(() => void this.timeOut(tracked), Math.max(0, job.deadline - Date.now())) };
    this.jobs.add(tracked);
    const paused: Record<StreamName, boolean> = { stdout: false, stderr: false };
    const deliver = (stream: StreamName) => (chunk: Buffer): void => {
      if (job.sinks[stream].push(chunk) || paused[stream]) return;
      // The file is congested: stop reading (the job blocks on write) until it drains.
      paused[stream] = true;
      job.channel.pause(stream);
      job.sinks[stream].onDrain(() => {
        paused[stream] = false;
        job.channel.resume(stream);
      });
    };
    job.channel.setReceiver({ stdout: deliver('stdout'), stderr: deliver('stderr') });
    void job.channel.ended.then(() => this.finish(tracked));
    this.log.info({ job: job.spec, pid: job.pid }, 'command detached as a background job');
  }

  /** Agent shutdown: the shell's session is killed by the supervisor; stop listening here. */
  shutdown(): void {
    for (const job of this.jobs) {
      clearTimeout(job.timer);
      job.channel.destroy();
    }
    this.jobs.clear();
  }

  private async finish(job: Tracked): Promise<void> {
    if (!this.jobs.delete(job)) return;
    clearTimeout(job.timer);
    job.channel.destroy();
    await Promise.all([job.sinks.stdout.finish(), job.sinks.stderr.finish()]);
    this.log.info({ job: job.spec, pid: job.pid }, 'background job output ended');
    job.onEnd?.();
    this.onFinished();
  }

  /**
   * C-AG-7 for a job: the processes bash waits for (the shell's children in the job's group) get SIGKILL at once, so
   * bash's status for the job — what `wait %N` reports — is 137 (freezing them would not do: `wait` returns as soon
   * as a job stops); the rest of the tree gets SIGTERM, the grace, then SIGKILL.
   */
  private async timeOut(job: Tracked): Promise<void> {
    if (!this.jobs.has(job)) return;
    const tree = jobTree(job);
    if (tree.all.length === 0) return;
    this.log.warn({ job: job.spec, pid: job.pid }, 'background job timed out; killing it');
    job.sinks.stderr.push(Buffer.from(`\n[cli-mcp: job ${job.spec} timed out after ${job.timeoutSeconds} s; its processes were killed (exit 137)]\n`));
    signalProcesses(tree.waitedFor, 'SIGKILL');
    signalProcesses(tree.others, 'SIGTERM');
    await settlesWithin(job.channel.ended, this.graceMs);
    const rest = jobTree(job);
    signalProcesses(rest.all, 'SIGKILL');
  }
}

/** The job's processes: its group, and every descendant of them (which may have moved to groups of their own). */
function jobTree(job: DetachedJob): { waitedFor: number[]; others: number[]; all: number[] } {
  const table = readProcTable();
  const members = new Set(table.filter((e) => e.pgrp === job.pgid && e.session === job.shellPid).map((e) => e.pid));
  for (let grew = true; grew;) {
    grew = false;
    for (const entry of table) {
      if (!members.has(entry.pid) && members.has(entry.ppid) && entry.session === job.shellPid) {
        members.add(entry.pid);
        grew = true;
      }
    }
  }
  const waitedFor = table.filter((e) => members.has(e.pid) && e.ppid === job.shellPid && e.pgrp === job.pgid).map((e) => e.pid);
  const others = [...members].filter((pid) => !waitedFor.includes(pid));
  return { waitedFor, others, all: [...members] };
}
