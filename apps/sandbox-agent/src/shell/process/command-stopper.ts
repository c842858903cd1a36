import { liveProcessKey, signalProcesses } from './proc-table.js';

export interface StopPlan {
  /** The command's processes right now (re-evaluated before each signal). */
  select(): number[];
  /** Last resort when the shell itself is stuck (a builtin loop): kill it; the next command gets a fresh shell. */
  killShell(): void;
  graceMs: number;
  settleMs: number;
}

export type StopOutcome = 'finished' | 'shell-killed';

const SURVIVOR_POLL_MS = 10;

/**
 * Stops a timed-out or cancelled command (C-AG-7, C-AG-4): SIGTERM its tree, wait `graceMs` for it to end, SIGKILL
 * what is left (what the tree holds then, and what of the first round still lives, even reparented), wait
 * `settleMs`; if it still has not ended, the shell itself is busy — kill the shell. With the defaults (500 + 300 ms)
 * this completes well within 1 s of the deadline.
 */
export async function stopCommand(plan: StopPlan, ended: Promise<unknown>): Promise<StopOutcome> {
  const first = plan.select();
  if (first.length > 0) {
    // A process that ignores SIGTERM may lose its parent to this round and be reparented out of the tree the next
    // `select()` walks: it is still the command's, recognised by pid and start time (not a reused pid).
    // The command can also end (its shell died) while such a process lives on: it gets the rest of the grace.
    const identities = new Map(first.map((pid) => [pid, liveProcessKey(pid)]));
    const survivors = (): number[] => first.filter((pid) => identities.get(pid) !== undefined && liveProcessKey(pid) === identities.get(pid));
    const graceEnds = Date.now() + plan.graceMs;
    signalProcesses(first, 'SIGTERM');
    if (await settlesWithin(ended, plan.graceMs)) {
      // Usually nothing (the shell reaped its children before it ended the command); what is still dying from the
      // SIGTERM is looked at again every few ms, and only what outlives the grace is killed.
      await whileAlive(survivors, graceEnds);
      kill(survivors());
      await whileAlive(survivors, Date.now() + plan.settleMs);
      return 'finished';
    }
    kill([...new Set([...plan.select(), ...survivors()])]);
    if (await settlesWithin(ended, plan.settleMs)) return 'finished';
  } else if (await settlesWithin(ended, plan.settleMs)) {
    // No child process: the command may just be finishing; give it the short settle time before judging.
    return 'finished';
  }
  // The shell itself is busy (e.g. a builtin loop `while :; do :; done`) and cannot be interrupted.
  plan.killShell();
  return 'shell-killed';
}

async function whileAlive(processes: () => number[], until: number): Promise<void> {
  while (processes().length > 0 && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, SURVIVOR_POLL_MS));
}

/** Freezes first so no process of the tree can react (print, start the next step) while the others die. */
function kill(pids: number[]): void {
  signalProcesses(pids, 'SIGSTOP');
  signalProcesses(pids, 'SIGKILL');
}

export async function settlesWithin(promise: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  try {
    return await Promise.race([promise.then(() => true), timeout]);
  } finally {
    clearTimeout(timer);
  }
}
