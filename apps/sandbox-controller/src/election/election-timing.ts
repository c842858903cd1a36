/**
 * Leader-election timing derived from one `--lease-duration` (C-CTL-1), in client-go's proportions: renew about
 * every third of the duration, step down after two thirds without a successful renewal. The remaining third is
 * the margin between "the old leader stopped" and "a successor may start" — it must cover the longest write the
 * old leader still had in flight, so controller writes are bounded by {@link writeTimeoutMs}.
 */
export class ElectionTiming {
  readonly leaseDurationMs: number;
  readonly renewDeadlineMs: number;
  readonly retryPeriodMs: number;
  /** Bound on one Lease request. */
  readonly requestTimeoutMs: number;

  constructor(leaseDurationMs: number) {
    if (!Number.isInteger(leaseDurationMs / 1000) || leaseDurationMs < 3000) {
      throw new Error(`lease duration must be whole seconds ≥ 3s, got ${leaseDurationMs} ms`); // validated by the config
    }
    this.leaseDurationMs = leaseDurationMs;
    this.renewDeadlineMs = Math.round((leaseDurationMs * 2) / 3);
    this.retryPeriodMs = Math.round(leaseDurationMs / 3);
    this.requestTimeoutMs = this.retryPeriodMs;
  }

  get leaseDurationSeconds(): number {
    return this.leaseDurationMs / 1000;
  }

  /** Bound on every pod/Secret write of the leader: less than the step-down margin (duration − deadline). */
  get writeTimeoutMs(): number {
    return Math.max(1000, this.leaseDurationMs - this.renewDeadlineMs - 1000);
  }
}
