import { DurationRange, Flag, FlagGroup, OTHER_GROUP } from '@cli-mcp/common';
import { SandboxSettings } from '@cli-mcp/kube';

const MIN_MS = 60_000;
const DAY_MS = 24 * 60 * MIN_MS;

export const CONTROLLER = 'Controller';
export const OTHER = OTHER_GROUP;

/**
 * Every controller flag, declared once with its type, `--help` text, default and rules (C-CFG-1), validated by
 * class-validator through `readSettings`. The sandbox flags — command timeouts, `--warm-pool-size`,
 * `--idle-timeout` — are the server's (`SandboxSettings`): pool pods' agents must apply the same timeouts, and a
 * range cannot differ between the two apps. The Kubernetes flags are the server's too (`KubernetesSettings`).
 */
@FlagGroup(CONTROLLER)
export class ControllerSettings extends SandboxSettings {
  @Flag('address', { short: 'a', valueName: 'host:port', default: '127.0.0.1:8081', description: 'Listen address of /live, /health and /metrics (in a pod: 0.0.0.0:8081 for the probes).' })
  address!: string;

  @Flag('identity', { valueName: 'name', defaultText: '<hostname>-<random>', description: 'This candidate\'s holder identity in the leader Lease (unique per process; the pod name in a cluster).' })
  identity?: string;

  /** 0 = off, like unset. */
  @Flag('max-session-age', { type: 'duration', valueName: 'duration', defaultText: 'off', description: 'Sessions older than this are deleted whatever their activity (C-CTL-7); 0 or unset = off.' })
  @DurationRange({ minMs: 0, maxMs: 365 * DAY_MS })
  maxSessionAgeMs?: number;

  @Flag('orphan-secret-grace', { type: 'duration', valueName: 'duration', default: '10m', description: 'A session Secret without any pod is deleted once it is older than this.' })
  @DurationRange({ minMs: MIN_MS, maxMs: 7 * DAY_MS })
  orphanSecretGraceMs!: number;

  @Flag('pool-shortfall-grace', { type: 'duration', valueName: 'duration', default: '5m', description: 'Fewer Ready pool pods than desired for longer than this shows in /health and a metric (C-CTL-8).' })
  @DurationRange({ minMs: 0, maxMs: DAY_MS })
  poolShortfallGraceMs!: number;

  // Whole seconds: the Lease stores leaseDurationSeconds; ≥ 3 s leaves a step-down margin of a second.
  @Flag('lease-duration', { type: 'duration', valueName: 'duration', default: '15s', description: 'Leader Lease duration: renewed every third of it; a crashed leader is replaced within it (C-CTL-1).' })
  @DurationRange({ minMs: 3000, maxMs: 5 * MIN_MS, wholeSeconds: true })
  leaseDurationMs!: number;
}
