import { DurationRange, Flag, FlagGroup, IntegerRange, Satisfies, StandardSettings } from '@cli-mcp/common';

const DAY_MS = 86_400_000;

/**
 * The sandbox flags the server and the sandbox controller share, declared ONCE (C-CFG-1, issue 19 item 4): the
 * command timeouts every sandbox agent is started with (C-AG-14) — the controller needs the server's values for
 * its pool pods to match the server's pods — and the pool and idle limits, which the server applies to local
 * sandboxes and the controller to pool pods. Both apps' settings classes extend this one, so a range can no
 * longer differ between them (it did: `--warm-pool-size` was 0–10,000 in one and 0–1,000 in the other). The
 * standard flags (`--log-level`, `--help`, `--version`) come with it.
 */
export const SANDBOX_GROUP = 'Sandboxes (the server and sandbox-controller read these alike)';

@FlagGroup(SANDBOX_GROUP)
export class SandboxSettings extends StandardSettings {
  @Flag('default-timeout', { type: 'duration', valueName: 'duration', default: '60s', description: 'Command timeout when a call gives none (or ≤ 0).' })
  @DurationRange({ minMs: 1000, maxMs: DAY_MS, wholeSeconds: true })
  @Satisfies('withinMaxTimeout', (ms: number, s: SandboxSettings) => s.maxTimeoutMs === undefined || ms <= s.maxTimeoutMs, '$property must not exceed maxTimeoutMs')
  defaultTimeoutMs!: number;

  @Flag('max-timeout', { type: 'duration', valueName: 'duration', default: '300s', description: 'Upper bound of a call\'s timeout; larger values are clamped.' })
  @DurationRange({ minMs: 1000, maxMs: DAY_MS, wholeSeconds: true })
  maxTimeoutMs!: number;

  @Flag('warm-pool-size', { type: 'integer', valueName: 'n', default: '0', description: 'Sandboxes kept started ahead of demand: by the server for --backend local, by sandbox-controller for Kubernetes (C-CTL-2).' })
  @IntegerRange(0, 1000)
  warmPoolSize!: number;

  @Flag('idle-timeout', { type: 'duration', valueName: 'duration', default: '30m', description: 'A session unused this long is ended, its sandbox removed: by the server for --backend local, by sandbox-controller for Kubernetes (C-CTL-3).' })
  @DurationRange({ minMs: 1000, maxMs: 30 * DAY_MS })
  idleTimeoutMs!: number;

  /** What the pods' agents get (whole seconds). */
  get podTimeouts(): { maxTimeoutSeconds: number; defaultTimeoutSeconds: number } {
    return { maxTimeoutSeconds: this.maxTimeoutMs / 1000, defaultTimeoutSeconds: this.defaultTimeoutMs / 1000 };
  }
}
