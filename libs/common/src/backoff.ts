/**
 * Exponential back-off with jitter for retries against the API server (issue 9 "backoff with jitter"): the delay
 * doubles from `initialMs` up to `maxMs`, and each value is spread over ±20 % so several controllers (or an
 * informer and a reconciler) do not retry in lockstep. `reset()` after a success.
 */
export class Backoff {
  private attempt = 0;

  constructor(private readonly options: { initialMs: number; maxMs: number; random: () => number }) {}

  /** The delay before the next retry (and counts this failure). */
  next(): number {
    const base = Math.min(this.options.maxMs, this.options.initialMs * 2 ** this.attempt);
    this.attempt = Math.min(this.attempt + 1, 30);
    return base * (0.8 + 0.4 * this.options.random());
  }

  /** Failures since the last reset. */
  get failures(): number {
    return this.attempt;
  }

  reset(): void {
    this.attempt = 0;
  }
}
