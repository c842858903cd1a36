import type { Clock } from '@cli-mcp/common';

export interface WarmPoolHooks<T> {
  /** Starts one unassigned agent and waits until it is ready. */
  start(): Promise<T>;
  /** Called with the reason when a start failed; the pool retries with backoff. */
  onStartFailed(error: unknown): void;
}

const RETRY_MIN_MS = 1_000;
const RETRY_MAX_MS = 60_000;

/**
 * Keeps `size` ready unassigned agents. `take()` hands one out and refills at once (a claim, not a timer,
 * triggers the refill — the local analogue of C-CTL-2). Failed starts retry with exponential backoff so a broken
 * agent build cannot spin the CPU.
 */
export class WarmPool<T> {
  private readonly ready: T[] = [];
  private starting = 0;
  private closed = false;
  private retryDelayMs = RETRY_MIN_MS;
  private cancelRetry?: () => void;

  constructor(
    private readonly size: number,
    private readonly clock: Clock,
    private readonly hooks: WarmPoolHooks<T>,
  ) {}

  get readyCount(): number {
    return this.ready.length;
  }

  get startingCount(): number {
    return this.starting;
  }

  /** Starts agents until ready + starting reaches the target size. */
  fill(): void {
    if (this.closed || this.cancelRetry) return;
    while (this.ready.length + this.starting < this.size) {
      this.starting++;
      this.hooks.start().then(
        (agent) => {
          this.starting--;
          this.retryDelayMs = RETRY_MIN_MS;
          // After close() the backend's shutdown stops every child it launched, this one included.
          this.ready.push(agent);
        },
        (error: unknown) => {
          this.starting--;
          this.hooks.onStartFailed(error);
          this.scheduleRetry();
        },
      );
    }
  }

  take(): T | undefined {
    const agent = this.ready.shift();
    if (agent !== undefined) this.fill();
    return agent;
  }

  /** Drops an agent that died while waiting in the pool and starts a replacement. */
  remove(agent: T): boolean {
    const index = this.ready.indexOf(agent);
    if (index < 0) return false;
    this.ready.splice(index, 1);
    this.fill();
    return true;
  }

  /** Stops refilling and returns every ready agent (the caller stops them). */
  close(): T[] {
    this.closed = true;
    this.cancelRetry?.();
    return this.ready.splice(0);
  }

  private scheduleRetry(): void {
    if (this.closed || this.cancelRetry) return;
    const delayMs = this.retryDelayMs;
    this.retryDelayMs = Math.min(this.retryDelayMs * 2, RETRY_MAX_MS);
    this.cancelRetry = this.clock.schedule(delayMs, () => {
      this.cancelRetry = undefined;
      this.fill();
    });
  }
}
