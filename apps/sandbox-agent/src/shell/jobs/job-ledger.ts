import type { EndedJob } from '@cli-mcp/agent-client';

/** One job of a `jobs -l` listing (`[2]+  4242 Exit 3   cmd`, a pipeline's further processes on lines without `[N]`). */
export interface JobLine {
  spec: string;
  /** The job's first process (what `jobs -l` names it by). */
  pid: number;
  /** Its last process: bash's status of the job is this one's, and `wait <lastPid>` answers it after bash forgot the job. */
  lastPid: number;
  /** `running` (Running or Stopped) or how it ended. */
  state: { kind: 'running' } | { kind: 'ended'; exitCode: number; signal?: string };
}

/** bash's texts for the signals a job commonly dies of (strsignal), for 128 + N. */
const SIGNAL_NUMBERS: Record<string, number> = {
  Hangup: 1, Interrupt: 2, Quit: 3, 'Illegal instruction': 4, 'Trace/breakpoint trap': 5, Aborted: 6, 'Bus error': 7,
  'Floating point exception': 8, Killed: 9, 'User defined signal 1': 10, 'Segmentation fault': 11,
  'User defined signal 2': 12, 'Broken pipe': 13, 'Alarm clock': 14, Terminated: 15,
};

/**
 * Parses what the tail's `jobs -l` wrote (bash 5.2 format: `[N]± PID STATE  COMMAND`, STATE being `Running`,
 * `Stopped (…)`, `Done`, `Exit N` or a signal's text, maybe with `(core dumped)`; the state column is padded, so its
 * end is the run of two spaces before the command). A pipeline's later processes follow as `   PID STATE  | cmd`
 * (their state blank while the job runs); the job's status is its last process's, as bash's `$?` for it.
 */
export function parseJobsListing(text: string): JobLine[] {
  const jobs: JobLine[] = [];
  for (const line of text.split('\n')) {
    const head = /^\[(\d+)\][+-]?\s+(\d+)\s+(.*?)(?:\s{2,}|$)/.exec(line);
    if (head) {
      const pid = Number(head[2]);
      jobs.push({ spec: `%${head[1]}`, pid, lastPid: pid, state: parseState(head[3]!.trim()) });
      continue;
    }
    const next = /^\s+(\d+)\s+(?:(\S.*?)\s{2,})?\|/.exec(line);
    const job = jobs[jobs.length - 1];
    if (!next || !job) continue;
    job.lastPid = Number(next[1]);
    if (next[2] !== undefined) job.state = parseState(next[2].trim());
  }
  return jobs;
}

function parseState(state: string): JobLine['state'] {
  if (state === 'Running' || state.startsWith('Stopped')) return { kind: 'running' };
  if (state === 'Done') return { kind: 'ended', exitCode: 0 };
  const exit = /^Exit (\d+)$/.exec(state);
  if (exit) return { kind: 'ended', exitCode: Number(exit[1]) };
  const signal = state.replace(/\s*\(core dumped\)$/, '');
  return { kind: 'ended', exitCode: 128 + (SIGNAL_NUMBERS[signal] ?? 0), signal: state };
}

/** The kept "status" of a job bash forgot without a listed end (protocol.sh `__climcp_wt` says what it means). */
export const TAKEN = 'taken';
/**
 * Not a status: a new job took the number, so the shell's kept status of the earlier job of that number goes
 * (`unset`). A stale one would make `wait %N` go through `__climcp_wt`, whose `jobs %N` probe makes bash report and
 * forget the new job if it just ended — its status lost (the e2e yield test's while loop, 1 run in 3).
 */
export const CLEARED = 'cleared';
export type KeptStatus = number | typeof TAKEN | typeof CLEARED;

interface Tracked {
  spec: string;
  pid: number;
  /** The pid whose status bash keeps for the job (its last process), once a listing showed it. */
  lastPid: number;
  /** Epoch ms. */
  startedAt: number;
  files?: { stdout?: string; stderr?: string };
}

/**
 * The session shell's jobs the model hears about (C-MCP-15): jobs a yield made (`noteDetached`) or bash listed as
 * running at a command's end (`absorb`, the tail's `jobs -l`), and the ends not yet reported. `take` hands each end
 * out once. A job bash forgot without a listing saying how it ended (the user's own `wait`, `jobs` or `disown` took
 * it) is not reported again — the command that took it showed its status — and its spec is kept as TAKEN, so a later
 * `wait %N` says where the job went instead of bash's "no such job" (C-MCP-15): bash keeps no status of a job it
 * started in the foreground (a yield's), so nothing here can know it.
 */
export class JobLedger {
  private readonly tracked = new Map<string, Tracked>();
  private ended: EndedJob[] = [];
  /** Listed ends not yet sent to the shell's `__climcp_K` (protocol.sh `__climcp_wt`). */
  private kept: Array<[string, KeptStatus]> = [];
  /** Every kept status by spec, for deciding whether a command needs the kept-status `wait`. */
  private readonly statuses = new Map<string, KeptStatus>();

  /** Whether the next command's tail must list the jobs (some job may end). */
  get watching(): boolean {
    return this.tracked.size > 0;
  }

  noteDetached(spec: string, pid: number, startedAt: number, files: { stdout?: string; stderr?: string }): void {
    this.forgetStatus(spec);
    this.tracked.set(key(spec, pid), { spec, pid, lastPid: pid, startedAt, files });
  }

  /** `listing` = what the tails wrote since the last call (called only when a tail wrote one); `commandStartedAt` dates jobs first seen in it. */
  absorb(listing: string, commandStartedAt: number, now = Date.now()): void {
    const seen = new Set<string>();
    for (const line of parseJobsListing(listing)) {
      const id = key(line.spec, line.pid);
      seen.add(id);
      const known = this.tracked.get(id);
      if (line.state.kind === 'running') {
        if (known) known.lastPid = line.lastPid;
        else {
          this.forgetStatus(line.spec);
          this.tracked.set(id, { spec: line.spec, pid: line.pid, lastPid: line.lastPid, startedAt: commandStartedAt });
        }
        continue;
      }
      this.tracked.delete(id);
      this.keep(line.spec, line.state.exitCode);
      const started = known?.startedAt ?? commandStartedAt;
      const end: EndedJob = { job: line.spec, pid: line.lastPid, exit_code: line.state.exitCode, duration_ms: Math.max(0, now - started) };
      if (line.state.signal !== undefined) end.signal = line.state.signal;
      if (known?.files?.stdout !== undefined) end.stdout_file = known.files.stdout;
      if (known?.files?.stderr !== undefined) end.stderr_file = known.files.stderr;
      this.ended.push(end);
    }
    // A listing is the whole table (empty: no jobs): a tracked job missing from it is gone from bash's table.
    for (const [id, job] of this.tracked) {
      if (seen.has(id)) continue;
      this.tracked.delete(id);
      this.keep(job.spec, TAKEN);
    }
  }

  /** A new job has `spec`: the status kept for an earlier job of that number no longer answers `wait %N`. */
  private forgetStatus(spec: string): void {
    if (this.statuses.delete(spec)) this.kept.push([spec, CLEARED]);
  }

  private keep(spec: string, status: KeptStatus): void {
    this.kept.push([spec, status]);
    this.statuses.set(spec, status);
  }

  /** A command that held the shell past its yield point ended (C-MCP-15, the `wait` case). */
  noteHeldEnded(end: EndedJob): void {
    this.ended.push(end);
  }

  /** The ends not reported yet, each handed out once. */
  take(): EndedJob[] | undefined {
    if (this.ended.length === 0) return undefined;
    const out = this.ended;
    this.ended = [];
    return out;
  }

  /** Whether the shell keeps a status for `spec` (a listed end, or TAKEN). */
  hasKeptStatus(spec: string): boolean {
    return this.statuses.has(spec);
  }

  /** Statuses listed since the last call, to send to the shell; handed out once. */
  takeKept(): Array<[string, KeptStatus]> | undefined {
    if (this.kept.length === 0) return undefined;
    const out = this.kept;
    this.kept = [];
    return out;
  }

  /** The shell was replaced: its jobs are gone with it (the reset notice says so). */
  clear(): void {
    this.tracked.clear();
    this.kept = [];
    this.statuses.clear();
  }
}

function key(spec: string, pid: number): string {
  return `${spec}:${pid}`;
}
