import type { Clock } from '@cli-mcp/common';
import { ShortfallTracker } from '../../pool/shortfall-tracker.js';

/**
 * Whether an instance's pool has filled since its size was last raised, and whether a shortfall outlasted the
 * grace (C-OP-4 `WarmPoolReady` without flapping on claims). The shortfall timer is the controller's own
 * `ShortfallTracker`; when it fires, the instance is reconciled again. A new leader starts from the stored status,
 * so a fail-over does not turn a filled pool's next claim into `WarmPoolNotReady`.
 */
export class PoolReadiness {
  private filledValue: boolean;
  private desired: number;
  private readonly tracker: ShortfallTracker;

  constructor(graceMs: number, clock: Clock, onShortfall: () => void, persisted: { filled: boolean; desired: number }) {
    this.filledValue = persisted.filled;
    this.desired = persisted.desired;
    this.tracker = new ShortfallTracker(graceMs, clock, onShortfall);
  }

  update(desired: number, ready: number): void {
    if (desired > this.desired) this.filledValue = false;
    this.desired = desired;
    if (ready >= desired) this.filledValue = true;
    this.tracker.update(desired, ready);
  }

  get filled(): boolean {
    return this.filledValue;
  }

  get shortfall(): boolean {
    return this.tracker.shortfall;
  }

  stop(): void {
    this.tracker.stop();
  }
}
