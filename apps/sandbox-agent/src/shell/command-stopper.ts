import { signalProcesses } from './proc-table.js';

export interface StopPlan {
  /** The command's processes right now (re-evaluated before each signal). */
  select(): number[];
  /** Last resort when the shell itself is stuck (a builtin loop): kill it; the next command gets a fresh shell. */
  killShell(): void;
  graceMs: number;
  settleMs: number;
}

export type StopOutcome = 'finished' | 'shell-killed';

/**
 * Stops a timed-out or cancelled command (C-AG-7, C-AG-4): SIGTERM its tree, wait `graceMs` for it to end, SIGKILL
 * what is left, wait `settleMs`; if it still has not ended, the shell itself is busy — kill the shell. With the
 * defaults (500 + 300 ms) this completes well within 1 s of the deadline.
 */
export async function stopCommand(plan: StopPlan, ended: Promise<unknown>): Promise<StopOutcome> {
  const first = plan.select();
  if (first.length > 0) {
    signalProcesses(first, 'SIGTERM');
    if (await settlesWithin(ended, plan.graceMs)) return 'finished';
    // Freeze first so no process of the tree can react (print, start the next step) while the others die.
    const rest = plan.select();
    signalProcesses(rest, 'SIGSTOP');
    signalProcesses(rest, 'SIGKILL');
    if (await settlesWithin(ended, plan.settleMs)) return 'finished';
  } else if (await settlesWithin(ended, plan.settleMs)) {
    // No child process: the command may just be finishing; give it the short settle time before judging.
    return 'finished';
  }
  // The shell itself is busy (e.g. a builtin loop `while :; do :; done`) and cannot be interrupted.
  plan.killShell();
  return 'shell-killed';
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
