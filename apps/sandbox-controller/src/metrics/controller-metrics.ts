import { Counter, Gauge, type Registry } from 'prom-client';
import { KubeError, isConflict } from '@cli-mcp/kube';

export type Reconciler = 'pool' | 'gc' | 'election' | 'informer' | 'instance';
/** Bounded reasons (never raw messages, C-CTL-4 / contract §9). */
export type ErrorReason = 'rejected' | 'quota' | 'conflict' | 'unavailable' | 'other';
export type GcReason = 'idle' | 'max_age' | 'orphan_secret';
export type PoolDeletionReason = 'surplus' | 'stale' | 'broken';

/** Maps any failure to its bounded metric reason. */
export function errorReason(error: unknown): ErrorReason {
  if (!(error instanceof KubeError)) return 'other';
  if (error.status === undefined || error.status === 429 || error.status >= 500) return 'unavailable';
  if (isConflict(error)) return 'conflict';
  if (error.status === 403 && /exceeded quota/i.test(error.message)) return 'quota';
  return 'rejected';
}

/** What the pool and GC reconcilers record: the controller's metrics, or one instance's slice of the operator's. */
export interface ReconcilerMetrics {
  readonly poolDesired: { set(value: number): void };
  readonly poolReady: { set(value: number): void };
  readonly poolPods: { set(labels: { state: string }, value: number): void };
  readonly poolCreations: { inc(labels: { outcome: string }): void };
  readonly poolDeletions: { inc(labels: { reason: string }): void };
  readonly gcDeletions: { inc(labels: { reason: string }): void };
  error(reconciler: Reconciler, error: unknown): void;
}

/**
 * The controller's metrics (C-CTL-4, C-CTL-8) on the app's own registry: pool desired/ready (and pods by state),
 * claims observed, pool creations and deletions, GC deletions by reason, reconcile errors, the shortfall flag and
 * whether this process leads. Labels are bounded enums only — plus, under `--operator`, `instance` (the
 * CliMcpInstance name: as many series as the admin made CRs), read through {@link forInstance}.
 */
export class ControllerMetrics implements ReconcilerMetrics {
  readonly poolDesired: Gauge;
  readonly poolReady: Gauge;
  readonly poolPods: Gauge<'state'>;
  readonly poolShortfall: Gauge;
  readonly poolCreations: Counter<'outcome'>;
  readonly poolDeletions: Counter<'reason'>;
  readonly claimsObserved: Counter;
  readonly gcDeletions: Counter<'reason'>;
  readonly reconcileErrors: Counter<'reconciler' | 'reason'>;
  readonly leader: Gauge;

  constructor(registry: Registry, options: { perInstance?: boolean } = {}) {
    const registers = [registry];
    const extra = options.perInstance ? ['instance'] : [];
    const labels = (...names: string[]) => ({ labelNames: [...names, ...extra] });
    this.poolDesired = new Gauge({ name: 'cli_mcp_controller_pool_desired', help: 'Unassigned sandbox pods the warm pool should hold (--warm-pool-size)', registers, ...labels() });
    this.poolReady = new Gauge({ name: 'cli_mcp_controller_pool_ready', help: 'Unassigned sandbox pods that are Ready now', registers, ...labels() });
    this.poolPods = new Gauge({ name: 'cli_mcp_controller_pool_pods', help: 'Unassigned sandbox pods by state', registers, ...labels('state') }) as Gauge<'state'>;
    this.poolShortfall = new Gauge({
      name: 'cli_mcp_controller_pool_shortfall',
      help: '1 while fewer pool pods are Ready than desired for longer than --pool-shortfall-grace',
      registers,
      ...labels(),
    });
    this.poolCreations = new Counter({ name: 'cli_mcp_controller_pool_creations_total', help: 'Pool pod creations by outcome', registers, ...labels('outcome') }) as Counter<'outcome'>;
    this.poolDeletions = new Counter({ name: 'cli_mcp_controller_pool_deletions_total', help: 'Pool pod deletions by reason', registers, ...labels('reason') }) as Counter<'reason'>;
    this.claimsObserved = new Counter({ name: 'cli_mcp_controller_claims_observed_total', help: 'Pool pods the leader saw claimed by a session', registers, ...labels() });
    this.gcDeletions = new Counter({ name: 'cli_mcp_controller_gc_deletions_total', help: 'Sessions (pods and Secret) or orphan Secrets removed by GC, by reason', registers, ...labels('reason') }) as Counter<'reason'>;
    this.reconcileErrors = new Counter({
      name: 'cli_mcp_controller_reconcile_errors_total',
      help: 'Failed API calls of the controller, by reconciler and reason',
      registers,
      labelNames: ['reconciler', 'reason'],
    });
    this.leader = new Gauge({ name: 'cli_mcp_controller_leader', help: '1 while this process holds the instance Lease', registers });
  }

  error(reconciler: Reconciler, error: unknown): void {
    this.reconcileErrors.inc({ reconciler, reason: errorReason(error) });
  }

  /** One instance's pool and GC series (built with `perInstance`); its errors count with the operator's. */
  forInstance(instance: string): ReconcilerMetrics {
    const at = <L extends object>(labels: L) => ({ ...labels, instance });
    return {
      poolDesired: { set: (value) => this.poolDesired.set({ instance }, value) },
      poolReady: { set: (value) => this.poolReady.set({ instance }, value) },
      poolPods: { set: (labels, value) => (this.poolPods as Gauge<string>).set(at(labels), value) },
      poolCreations: { inc: (labels) => (this.poolCreations as Counter<string>).inc(at(labels)) },
      poolDeletions: { inc: (labels) => (this.poolDeletions as Counter<string>).inc(at(labels)) },
      gcDeletions: { inc: (labels) => (this.gcDeletions as Counter<string>).inc(at(labels)) },
      error: (reconciler, error) => this.error(reconciler, error),
    };
  }
}
