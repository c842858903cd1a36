import { errorText, type Clock } from '@cli-mcp/common';
import type { ControllerLogger } from '../controller-logger.js';
import { Backoff } from '@cli-mcp/common';

/** What one pass asks for: run again after this long (soonest expiry, a back-off), or only on the next trigger. */
export interface PassResult {
  readonly requeueAfterMs?: number;
}

export interface ReconcileLoopOptions {
  readonly name: string;
  /** One pass; `signal` aborts when the loop stops (leadership ended). A throw backs the loop off. */
  readonly pass: (signal: AbortSignal) => Promise<PassResult>;
  readonly clock: Clock;
  readonly random: () => number;
  readonly logger: ControllerLogger;
  /** A pass failed (thrown): for the reconcile-error metric. */
  readonly onError?: (error: unknown) => void;
}

/**
 * Runs a reconciler's passes one at a time (controller-runtime's work queue with one key): triggers while a pass
 * runs coalesce into ONE more pass after it, so a burst of watch events costs one pass; a pass's `requeueAfterMs`
 * schedules the next (the soonest timer wins); a failed pass is retried after a jittered exponential back-off
 * (1 s … 60 s) instead of hammering the API. Runs only between `start(signal)` and `stop()`.
 */
export class ReconcileLoop {
  private readonly backoff: Backoff;
  private signal?: AbortSignal;
  private running = false;
  private dirty = false;
  private cancelTimer?: () => void;
  private timerAt = Number.POSITIVE_INFINITY;
  private current?: Promise<void>;

  constructor(private readonly options: ReconcileLoopOptions) {
    this.backoff = new Backoff({ initialMs: 1000, maxMs: 60_000, random: options.random });
  }

  get active(): boolean {
    return this.signal !== undefined && !this.signal.aborted;
  }

  /** Starts passes (one now); they stop when `signal` aborts. */
  start(signal: AbortSignal): void {
    this.signal = signal;
    this.backoff.reset();
    signal.addEventListener('abort', () => this.clearTimer(), { once: true });
    this.trigger();
  }

  /** Waits for a pass in flight to end (after the signal aborted it). */
  async idle(): Promise<void> {
    await this.current;
  }

  /** Asks for a pass as soon as possible (coalesced). */
  trigger(): void {
    if (!this.active) return;
    if (this.running) {
      this.dirty = true;
      return;
    }
    this.clearTimer();
    this.current = this.run();
  }

  private async run(): Promise<void> {
    const signal = this.signal;
    if (!signal || signal.aborted) return;
    this.running = true;
    let nextMs: number | undefined;
    try {
      const result = await this.options.pass(signal);
      this.backoff.reset();
      nextMs = result.requeueAfterMs;
    } catch (error) {
      if (signal.aborted) return;
      nextMs = this.backoff.next();
      this.options.onError?.(error);
      this.options.logger.warn(`${this.options.name}: pass failed; retrying`, { error: errorText(error), retry_in_ms: Math.round(nextMs) });
    } finally {
      this.running = false;
    }
    if (signal.aborted) return;
    if (this.dirty) {
      this.dirty = false;
      this.current = this.run();
      return;
    }
    if (nextMs !== undefined) this.schedule(nextMs);
  }

  private schedule(delayMs: number): void {
    const at = this.options.clock.now() + Math.max(0, delayMs);
    if (at >= this.timerAt) return;
    this.clearTimer();
    this.timerAt = at;
    this.cancelTimer = this.options.clock.schedule(Math.max(0, delayMs), () => {
      this.timerAt = Number.POSITIVE_INFINITY;
      this.cancelTimer = undefined;
      this.trigger();
    });
  }

  private clearTimer(): void {
    this.cancelTimer?.();
    this.cancelTimer = undefined;
    this.timerAt = Number.POSITIVE_INFINITY;
  }
}
