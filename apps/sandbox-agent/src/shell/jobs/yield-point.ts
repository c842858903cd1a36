import { readFileSync } from 'node:fs';
import type { RunMode } from '../script/command-script.js';
import { processKey, type ProcEntry } from '../process/process-tree.js';

/** What to do with a command still running at its yield point (C-MCP-11). */
export type YieldAction =
  | { kind: 'detach'; pgid: number }
  | { kind: 'interrupt' }
  | { kind: 'busy'; reason: string };

export const BUSY_REASONS = {
  inShell: 'it runs in the session shell itself (it changes the shell\'s state, calls a shell function, or has a shape ' +
    'the agent cannot detach); to make such work detachable, run it as one program, a pipeline or a ( … ) subshell, or end it with &',
  noJob: 'the session shell itself is busy (a builtin loop or a command substitution), with no separate job to detach',
  replaced: 'the command replaced the session shell (exec)',
  noChannel: 'the agent could not create a new output channel for the shell (mkfifo failed)',
} as const;

export interface YieldScene {
  mode: RunMode | undefined;
  shellPid: number;
  /** The shell's children before the command started (earlier background jobs). */
  preexisting: ReadonlySet<string>;
  table: readonly ProcEntry[];
  /** The shell's pid no longer runs a shell (`exec prog`). */
  shellReplaced: boolean;
}

/**
 * Pure decision on a /proc snapshot. A command can be detached when the shell marked it detachable (J: its last
 * statement is one job; P: it runs as a `( … )` subshell — command-shape.ts) and the shell is waiting for exactly one job of
 * this command: children of the shell, started by the command, in one process group other than the shell's own.
 */
export function decideAtYield(scene: YieldScene): YieldAction {
  if (scene.shellReplaced) return { kind: 'busy', reason: BUSY_REASONS.replaced };
  if (scene.mode === 'W') return { kind: 'interrupt' };
  if (scene.mode !== 'J' && scene.mode !== 'P') return { kind: 'busy', reason: BUSY_REASONS.inShell };
  const groups = new Set<number>();
  for (const entry of scene.table) {
    if (entry.ppid !== scene.shellPid || scene.preexisting.has(processKey(entry))) continue;
    if (entry.pgrp !== scene.shellPid) groups.add(entry.pgrp);
  }
  if (groups.size !== 1) return { kind: 'busy', reason: BUSY_REASONS.noJob };
  return { kind: 'detach', pgid: [...groups][0]! };
}

/** `[3]+  4242 Stopped (signal)  sleep 5` (first line of `jobs -l %+`) → job spec and leader pid. */
export function parseJobLine(text: string): { spec: string; pid: number } | undefined {
  const match = /^\[(\d+)\][+-]?\s+(\d+)\s/m.exec(text);
  return match ? { spec: `%${match[1]}`, pid: Number(match[2]) } : undefined;
}

/** Whether the process still runs a shell (its command name), for YieldScene.shellReplaced. */
export function runsShell(pid: number): boolean {
  try {
    return /^(ba)?sh$/.test(readFileSync(`/proc/${pid}/comm`, 'latin1').trim());
  } catch {
    return false;
  }
}
