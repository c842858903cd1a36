import { DurationRange, FromFlag, IntegerRange, LOG_LEVELS, OneOf, Satisfies, type LogLevelName } from '@cli-mcp/common';
import { CommandTimeoutSettings } from '@cli-mcp/kube';
import type { BackendKind, LocalIsolation, LocalNetwork, ResultFormat, Transport } from './server-config.js';

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

/**
 * The server's typed flags with their rules (C-CFG-1), validated by class-validator through `readSettings`: one
 * decorated field per flag of `SERVER_FLAGS` that needs no file or network access. Flags that read files or
 * parse addresses (`--address`, `--allowed-hosts`, `--*-file`, `--state-dir`, `--session-id`) and the shared
 * Kubernetes flags (`readKubernetesSettings`) are read by `loadServerConfig` itself; the command timeouts are
 * shared with the controller (`CommandTimeoutSettings`).
 */
export class ServerSettings extends CommandTimeoutSettings {
  @FromFlag('transport') @OneOf(['stdio', 'http']) transport!: Transport;
  @FromFlag('backend') @OneOf(['local', 'kubernetes']) backend!: BackendKind;
  /** Go compatibility only: HTTP is always stateless here. */
  @FromFlag('stateless', 'boolean') stateless!: boolean;

  /** Unset: `--max-timeout` + 10 s. */
  @FromFlag('shutdown-grace', 'duration') @DurationRange({ minMs: 0, maxMs: DAY_MS }) shutdownGraceMs?: number;
  @FromFlag('result-format') @OneOf(['text', 'json']) resultFormat!: ResultFormat;
  @FromFlag('max-output-chars', 'integer') @IntegerRange(1000, 10_000_000) maxOutputChars!: number;
  // C-MCP-11: 0 = never; otherwise at least a second, so a call always gets to start its command.
  @FromFlag('yield-after', 'duration')
  @DurationRange({ minMs: 0, maxMs: DAY_MS })
  @Satisfies((ms: number) => ms === 0 || ms >= 1000, '{self} must be 0 (never) or at least 1s')
  yieldAfterMs!: number;
  @FromFlag('progress-interval', 'duration') @DurationRange({ minMs: 100, maxMs: 5000 }) progressIntervalMs!: number;
  @FromFlag('cache-ttl', 'duration') @DurationRange({ minMs: 1000, maxMs: HOUR_MS }) cacheTtlMs!: number;

  @FromFlag('local-isolation') @OneOf(['auto', 'bwrap', 'none']) localIsolation!: LocalIsolation;

  // Only bubblewrap can give a sandbox its own network namespace (docs/local-backend.md, "Network").
  @FromFlag('local-network')
  @OneOf(['auto', 'isolated', 'host', 'none'])
  @Satisfies(
    (network: string, s: ServerSettings) => !(s.backend === 'local' && (network === 'none' || network === 'isolated') && s.localIsolation === 'none'),
    '{self} {value} needs bubblewrap: use {flagOf:localIsolation} auto or bwrap',
  )
  localNetwork!: LocalNetwork;

  /** Unset: no process limit (C-SEC-3). */
  @FromFlag('local-max-processes', 'integer') @IntegerRange(32, 1_000_000) localMaxProcesses?: number;

  @FromFlag('max-sessions', 'integer') @IntegerRange(1, 10_000) maxSessions!: number;

  @FromFlag('warm-pool-size', 'integer')
  @IntegerRange(0, 10_000)
  @Satisfies((size: number, s: ServerSettings) => s.maxSessions === undefined || size <= s.maxSessions, '{self} ({value}) must not exceed {flagOf:maxSessions} ({valueOf:maxSessions})')
  warmPoolSize!: number;

  @FromFlag('idle-timeout', 'duration') @DurationRange({ minMs: 1000, maxMs: 30 * DAY_MS }) idleTimeoutMs!: number;
  @FromFlag('ready-timeout', 'duration') @DurationRange({ minMs: 1000, maxMs: HOUR_MS }) readyTimeoutMs!: number;
  @FromFlag('activity-interval', 'duration') @DurationRange({ minMs: 1000, maxMs: HOUR_MS }) activityIntervalMs!: number;
  @FromFlag('log-level') @OneOf(LOG_LEVELS) logLevel!: LogLevelName;
}
