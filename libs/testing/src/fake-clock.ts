/** The clock port of libs/session, structurally (libs/testing depends on no other lib). */
export interface ClockLike {
  now(): number;
  schedule(delayMs: number, callback: () => void): () => void;
}

/**
 * A manually advanced monotonic clock with one-shot timers, for unit tests of anything that takes a `Clock`
 * (libs/session, the controller): no sleeps, timers fire in time order as `advance` moves past them.
 */
export class FakeClock implements ClockLike {
  private time = 1_000;
  private nextId = 0;
  private readonly timers = new Map<number, { at: number; callback: () => void }>();

  now(): number {
    return this.time;
  }

  schedule(delayMs: number, callback: () => void): () => void {
    const id = this.nextId++;
    this.timers.set(id, { at: this.time + Math.max(0, delayMs), callback });
    return () => this.timers.delete(id);
  }

  /** Moves time forward, firing due timers in time order (timers scheduled by callbacks included). */
  advance(ms: number): void {
    const target = this.time + ms;
    for (;;) {
      const due = [...this.timers.entries()].filter(([, t]) => t.at <= target).sort((a, b) => a[1].at - b[1].at)[0];
      if (!due) break;
      this.timers.delete(due[0]);
      this.time = Math.max(this.time, due[1].at);
      due[1].callback();
    }
    this.time = target;
  }

  /** Due times (relative to now) of pending timers, soonest first. */
  pending(): number[] {
    return [...this.timers.values()].map((t) => t.at - this.time).sort((a, b) => a - b);
  }

  get pendingTimers(): number {
    return this.timers.size;
  }
}
