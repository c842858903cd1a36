import type { Clock } from '@cli-mcp/common';

/** What `/health` says about the pool (C-CTL-8). */
export interface PoolHealth {
  readonly desired: number;
  readonly ready: number;
  /** Ready < desired since this many seconds (undefined when the pool is full). */
  readonly shortSeconds?: number;
  /** The shortfall lasted longer than `--pool-shortfall-grace`. */
  readonly shortfall: boolean;
}

/**
 * Tracks how long the pool has had fewer Ready pods than desired (C-CTL-8): a dip right after a claim is normal
 * (the refill takes a pod start), so only a shortfall longer than the grace is reported — in `/health` details
 * and `cli_mcp_controller_pool_shortfall`. A timer flips it at the grace even when no event arrives.
 */
export class ShortfallTracker {
  private since?: number;
  private cancel?: () => void;
  private last: { desired: number; ready: number } = { desired: 0, ready: 0 };

  constructor(
    private readonly graceMs: number,
    private readonly clock: Clock,
    private readonly onChange: (shortfall: boolean) => void,
  ) {}

  update(desired: number, ready: number): void {
    this.last = { desired, ready };
    if (ready >= desired) {
      const was = this.shortfall;
      this.since = undefined;
      this.cancel?.();
      if (was) this.onChange(false);
      return;
    }
    if (this.since !== undefined) return;
    this.since = this.clock.now();
    this.cancel = this.clock.schedule(this.graceMs + 1, () => this.onChange(this.shortfall));
  }

  get shortfall(): boolean {
    return this.since !== undefined && this.clock.now() - this.since > this.graceMs;
  }

  health(): PoolHealth {
    const shortSeconds = this.since === undefined ? undefined : Math.round((this.clock.now() - this.since) / 1000);
    return { ...this.last, ...(shortSeconds === undefined ? {} : { shortSeconds }), shortfall: this.shortfall };
  }

  stop(): void {
    this.cancel?.();
  }
}
