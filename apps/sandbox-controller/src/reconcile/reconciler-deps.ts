import type { Clock } from '@cli-mcp/common';
import type { ControllerLogger } from '../controller-logger.js';
import type { ControllerKubeApi } from '../kube/controller-kube-api.port.js';
import type { PodInformer } from '@cli-mcp/kube';
import type { ReconcilerMetrics } from '../metrics/controller-metrics.js';

/** What every reconciler (pool, GC) reads, writes and is timed with. */
export interface ReconcilerDeps {
  readonly api: ControllerKubeApi;
  readonly informer: PodInformer;
  readonly clock: Clock;
  readonly wallClock: () => Date;
  readonly metrics: ReconcilerMetrics;
  readonly logger: ControllerLogger;
  /** Bound on each write (less than the election's step-down margin). */
  readonly writeTimeoutMs: number;
  /** Checked before every write: only the leader writes (C-CTL-1). */
  readonly isLeader: () => boolean;
}
