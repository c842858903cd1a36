/** Why a command was stopped before its end (C-AG-7). */
export type StopReason = 'timeout' | 'cancel';

/**
 * The phases of one command on the persistent shell (ShellEngine.runPipe, issue 19: an explicit state machine instead
 * of three flags). Every phase but `ended` lasts until the command's end markers arrive (or bash exits):
 * - `running`: the command runs; nothing happened to it yet.
 * - `stopping`: its timeout or a cancel (C-AG-7) is stopping it; the reason is kept.
 * - `interrupted`: a lone `wait` got the stop trap at its yield point (C-MCP-11); its jobs keep running.
 * - `held`: at its yield point it keeps the shell; the early answer said why (C-MCP-11, C-MCP-15).
 * - `preparing`: at its yield point it can become a job; the agent creates its output channel (async).
 * - `detaching`: its job got SIGSTOP; once the tail ran, the handoff continues it in the background.
 * - `ended`: the end markers arrived or bash exited.
 */
export type PipePhase = 'running' | 'stopping' | 'interrupted' | 'held' | 'preparing' | 'detaching' | 'ended';

/** Where each phase may go. A stop may overtake anything before the end; `preparing` falls back when it cannot go on. */
const TRANSITIONS: Record<PipePhase, readonly PipePhase[]> = {
  running: ['stopping', 'interrupted', 'held', 'preparing', 'ended'],
  interrupted: ['stopping', 'ended'],
  held: ['stopping', 'ended'],
  preparing: ['detaching', 'held', 'running', 'stopping', 'ended'],
  detaching: ['stopping', 'ended'],
  stopping: ['ended'],
  ended: [],
};

export class IllegalPhaseTransition extends Error {}

export class PipePhases {
  private current: PipePhase = 'running';
  private readonly visited = new Set<PipePhase>(['running']);
  private reason: StopReason | undefined;

  get phase(): PipePhase {
    return this.current;
  }

  /** A method, not `phase ===`: TypeScript would keep a narrowing of the getter across an `await`. */
  is(phase: PipePhase): boolean {
    return this.current === phase;
  }

  /** Why the command was stopped, once it entered `stopping`. */
  get stopReason(): StopReason | undefined {
    return this.reason;
  }

  /** Whether the command went through `phase` (a stopped `wait` still answers as interrupted). */
  passedThrough(phase: PipePhase): boolean {
    return this.visited.has(phase);
  }

  can(to: PipePhase): boolean {
    return TRANSITIONS[this.current].includes(to);
  }

  move(to: PipePhase): void {
    if (!this.can(to)) throw new IllegalPhaseTransition(`pipe command: ${this.current} → ${to}`);
    this.current = to;
    this.visited.add(to);
  }

  stop(reason: StopReason): void {
    this.move('stopping');
    this.reason = reason;
  }
}
