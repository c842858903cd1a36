import { DurationRange, FromFlag, IntegerRange, LOG_LEVELS, OneOf, type LogLevelName } from '@cli-mcp/common';
import { CommandTimeoutSettings } from '@cli-mcp/kube';

const MIN_MS = 60_000;
const DAY_MS = 24 * 60 * MIN_MS;

/**
 * The controller's typed flags and their rules (C-CFG-1), validated by class-validator through `readSettings`. The
 * command timeouts are the server's (`CommandTimeoutSettings`): pool pods' agents must apply the same ones.
 */
export class ControllerSettings extends CommandTimeoutSettings {
  @FromFlag('address') address!: string;
  @FromFlag('identity') identity?: string;
  @FromFlag('warm-pool-size', 'integer') @IntegerRange(0, 1000) warmPoolSize!: number;
  @FromFlag('idle-timeout', 'duration') @DurationRange({ minMs: 1000, maxMs: 30 * DAY_MS }) idleTimeoutMs!: number;
  /** 0 = off, like unset. */
  @FromFlag('max-session-age', 'duration') @DurationRange({ minMs: 0, maxMs: 365 * DAY_MS }) maxSessionAgeMs?: number;
  @FromFlag('orphan-secret-grace', 'duration') @DurationRange({ minMs: MIN_MS, maxMs: 7 * DAY_MS }) orphanSecretGraceMs!: number;
  @FromFlag('pool-shortfall-grace', 'duration') @DurationRange({ minMs: 0, maxMs: DAY_MS }) poolShortfallGraceMs!: number;
  // Whole seconds: the Lease stores leaseDurationSeconds; ≥ 3 s leaves a step-down margin of a second.
  @FromFlag('lease-duration', 'duration') @DurationRange({ minMs: 3000, maxMs: 5 * MIN_MS, wholeSeconds: true }) leaseDurationMs!: number;
  @FromFlag('log-level') @OneOf(LOG_LEVELS) logLevel!: LogLevelName;
}
