import { readdirSync, readFileSync } from 'node:fs';
import { processKey, type ProcEntry } from './process-tree.js';

/**
 * Reads Linux /proc. Synchronous on purpose: procfs reads never touch a disk and take microseconds, and they happen
 * only at command start (the shell's children, usually none) and when a command is being killed.
 */

/** Parses `/proc/<pid>/stat`; the command name may contain spaces and parentheses, so fields follow the last `)`. */
export function parseStat(text: string): ProcEntry | undefined {
  const open = text.indexOf('(');
  const close = text.lastIndexOf(')');
  if (open < 0 || close < open) return undefined;
  const pid = Number(text.slice(0, open).trim());
  const fields = text.slice(close + 2).split(' ');
  // fields[0] = state (field 3); ppid = field 4, pgrp = 5, session = 6, starttime = 22.
  const ppid = Number(fields[1]);
  const pgrp = Number(fields[2]);
  const session = Number(fields[3]);
  const startTime = Number(fields[19]);
  if (![pid, ppid, pgrp, session, startTime].every(Number.isFinite)) return undefined;
  return { pid, ppid, pgrp, session, startTime };
}

export function readProcEntry(pid: number): ProcEntry | undefined {
  try {
    return parseStat(readFileSync(`/proc/${pid}/stat`, 'latin1'));
  } catch {
    return undefined;
  }
}

export function readProcTable(): ProcEntry[] {
  const table: ProcEntry[] = [];
  for (const name of readdirSync('/proc')) {
    if (name.charCodeAt(0) < 48 || name.charCodeAt(0) > 57) continue;
    const entry = readProcEntry(Number(name));
    if (entry) table.push(entry);
  }
  return table;
}

/** `processKey`s of the direct children of `pid` right now (earlier background jobs, at command start). */
export function snapshotChildren(pid: number): Set<string> {
  const keys = new Set<string>();
  let pids: number[];
  try {
    const text = readFileSync(`/proc/${pid}/task/${pid}/children`, 'latin1').trim();
    pids = text === '' ? [] : text.split(' ').map(Number);
  } catch {
    // Kernel without CONFIG_PROC_CHILDREN: scan everything.
    pids = readProcTable().filter((e) => e.ppid === pid).map((e) => e.pid);
  }
  for (const child of pids) {
    const entry = readProcEntry(child);
    if (entry) keys.add(processKey(entry));
  }
  return keys;
}

/** Whether the process ignores SIGHUP (bit 0 of `SigIgn` in /proc/<pid>/status). */
export function ignoresHangup(pid: number): boolean {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'latin1');
    const match = /^SigIgn:\s*([0-9a-f]+)$/m.exec(status);
    return match ? (Number.parseInt(match[1]!.slice(-1), 16) & 1) === 1 : false;
  } catch {
    return false;
  }
}

/** Sends a signal, ignoring processes that are already gone. */
export function signalProcesses(pids: readonly number[], signal: NodeJS.Signals): void {
  for (const pid of pids) {
    try {
      process.kill(pid, signal);
    } catch {
      // ESRCH: exited meanwhile.
    }
  }
}
