import { readFileSync } from 'node:fs';

/**
 * A process named by its pid and its start time. A pid alone names whichever process got the number last: these
 * machines have pid_max 32768 and one suite run forks tens of thousands of processes, so a pid a test wrote down
 * may belong to another test's process by the time the test looks (a wait for "gone" that never ends) or kills
 * (another file's network namespace holder or dev cluster dies, and its cases fail within milliseconds — the two
 * flakes of issue 19). Taking the reference while the process surely runs, and comparing the start time on every
 * look, makes a recycled pid read as "gone" and keeps signals away from it.
 */
export interface ProcessRef {
  readonly pid: number;
  /** Field 22 of /proc/<pid>/stat (clock ticks since boot); undefined when no such process ran at capture. */
  readonly startTime: string | undefined;
}

/** `pid` as it is now. Capture it while the process is known to run (right after it reported its pid). */
export function processRef(pid: number): ProcessRef {
  return { pid, startTime: statOf(pid)?.startTime };
}

/**
 * The process whose /proc/<pid>/stat text this is — for a process that wrote its own (`cat /proc/$$/stat > f`)
 * and may have ended before the test reads the file: its pid alone could be another process's by then.
 */
export function processRefFromStat(stat: string): ProcessRef {
  const parsed = parseStat(stat);
  return { pid: parsed.pid, startTime: parsed.startTime };
}

/** Whether the very process of `ref` still runs (not exited, not a zombie, not a newer process with its pid). */
/**
 * States of a task that has exited: a zombie (`Z`), or one already reaped whose entry the kernel has not yet
 * removed (`X`, `x`: briefly visible after the parent's wait, longer on a loaded machine).
 */
export function hasExited(state: string): boolean {
  return state === 'Z' || state === 'X' || state === 'x';
}

export function isAlive(ref: ProcessRef): boolean {
  if (ref.startTime === undefined) return false;
  const stat = statOf(ref.pid);
  return stat !== undefined && stat.startTime === ref.startTime && !hasExited(stat.state);
}

/** Signals the process of `ref` if it still runs; false when it is gone (its pid is never signalled then). */
export function signalProcess(ref: ProcessRef, signal: NodeJS.Signals | 0): boolean {
  if (!isAlive(ref)) return false;
  try {
    process.kill(ref.pid, signal);
    return true;
  } catch {
    return false;
  }
}

function statOf(pid: number): ProcStat | undefined {
  if (!Number.isInteger(pid) || pid <= 0) return undefined;
  try {
    return parseStat(readFileSync(`/proc/${pid}/stat`, 'latin1'));
  } catch {
    return undefined;
  }
}

/** The fields of /proc/<pid>/stat the tests read; undefined when no such process runs (or it ended meanwhile). */
export interface ProcStat {
  readonly pid: number;
  readonly state: string;
  readonly ppid: number;
  readonly startTime: string;
}

export function readProcStat(pid: number): ProcStat | undefined {
  return statOf(pid);
}

function parseStat(stat: string): ProcStat {
  // comm (field 2) may hold spaces and parentheses: the fields after it start past the last ')'.
  const close = stat.lastIndexOf(')');
  const fields = stat.slice(close + 2).trim().split(' ');
  const pid = Number.parseInt(stat, 10);
  if (close < 0 || !Number.isInteger(pid) || fields.length < 20) throw new Error(`not a /proc/<pid>/stat line: ${stat.slice(0, 80)}`);
  return { pid, state: fields[0]!, ppid: Number(fields[1]), startTime: fields[19]! };
}
