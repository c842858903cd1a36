import type { Clock } from '@cli-mcp/common';

interface Activity {
  lastActivity: number;
  inFlight: number;
}

/**
 * Ends sessions idle for `idleMs`. One timer, set at the soonest expiry (not a fixed tick); a session with a
 * running command is never idle, and its idle time starts when the command ends. `touch` only moves an expiry
 * later, so it needs no rescheduling: an early timer finds nothing expired and re-arms.
 */
export class IdleReaper {
  private readonly sessions = new Map<string, Activity>();
  private cancelTimer?: () => void;
  private timerAt = Number.POSITIVE_INFINITY;
  private stopped = false;

  constructor(
    private readonly clock: Clock,
    private readonly idleMs: number,
    private readonly onIdle: (sessionId: string) => void,
  ) {}

  has(sessionId: string): boolean {
    return this.sessions.has(sessionId);
  }

  /** Starts (or restarts) tracking a session as active now. */
  track(sessionId: string): void {
    this.sessions.set(sessionId, { lastActivity: this.clock.now(), inFlight: 0 });
    this.reschedule();
  }

  touch(sessionId: string): void {
    const activity = this.sessions.get(sessionId);
    if (activity) activity.lastActivity = this.clock.now();
    else this.track(sessionId);
  }

  /** Marks a command as running; the returned function (idempotent) marks it done. */
  begin(sessionId: string): () => void {
    if (!this.sessions.has(sessionId)) this.track(sessionId);
    const activity = this.sessions.get(sessionId)!;
    activity.inFlight++;
    this.reschedule();
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      activity.inFlight--;
      activity.lastActivity = this.clock.now();
      if (this.sessions.get(sessionId) === activity) this.reschedule();
    };
  }

  forget(sessionId: string): void {
    this.sessions.delete(sessionId);
  }

  stop(): void {
    this.stopped = true;
    this.cancelTimer?.();
    this.cancelTimer = undefined;
  }

  private reschedule(): void {
    if (this.stopped) return;
    let soonest = Number.POSITIVE_INFINITY;
    for (const activity of this.sessions.values()) {
      if (activity.inFlight === 0) soonest = Math.min(soonest, activity.lastActivity + this.idleMs);
    }
    if (soonest === this.timerAt) return;
    this.cancelTimer?.();
    this.cancelTimer = undefined;
    this.timerAt = soonest;
    if (soonest === Number.POSITIVE_INFINITY) return;
    this.cancelTimer = this.clock.schedule(soonest - this.clock.now(), () => this.fire());
  }

  private fire(): void {
    this.cancelTimer = undefined;
    this.timerAt = Number.POSITIVE_INFINITY;
    const now = this.clock.now();
    const idle: string[] = [];
    for (const [sessionId, activity] of this.sessions) {
      if (activity.inFlight === 0 && now - activity.lastActivity >= this.idleMs) idle.push(sessionId);
    }
    for (const sessionId of idle) this.sessions.delete(sessionId);
    this.reschedule();
    for (const sessionId of idle) this.onIdle(sessionId);
  }
}
