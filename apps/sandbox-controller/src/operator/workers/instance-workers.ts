import type { V1Pod } from '@kubernetes/client-node';
import { canonicalJson, sandboxSpecHash, type SandboxPodConfig } from '@cli-mcp/podspec';
import type { ProcessPorts } from '../../controller-runtime.js';
import { GcReconciler } from '../../gc/gc-reconciler.js';
import type { ControllerKubeApi } from '../../kube/controller-kube-api.port.js';
import type { EgressGate, ObjectInformer } from '@cli-mcp/kube';
import type { ReconcilerMetrics } from '../../metrics/controller-metrics.js';
import { planPool, type PoolCounts } from '../../pool/pool-plan.js';
import { PoolReconciler } from '../../pool/pool-reconciler.js';
import { ReconcileLoop } from '../../reconcile/reconcile-loop.js';
import { InstancePodView } from './instance-pod-view.js';

/** What one instance's pool and GC run with; `undefined` parts are paused (nothing created, trimmed or reaped). */
export interface WorkerSettings {
  readonly podConfig: SandboxPodConfig;
  /** Unassigned pods to keep; undefined = the pool loop stops (e.g. an admin Secret is missing). */
  readonly poolSize: number | undefined;
  /** undefined = the GC loop stops (e.g. another controller's objects share the instance name). */
  readonly gc: { readonly idleTimeoutMs: number; readonly maxSessionAgeMs: number | undefined } | undefined;
  /** spec.proxy: the fail-closed gate every refill passes first, the controller's (C-EGR-6). */
  readonly egressGate?: Pick<EgressGate, 'check'> | undefined;
}

export interface InstanceWorkerDeps extends ProcessPorts {
  readonly pods: ObjectInformer<V1Pod>;
  readonly api: ControllerKubeApi;
  readonly metrics: ReconcilerMetrics;
  readonly writeTimeoutMs: number;
  readonly isLeader: () => boolean;
  readonly orphanGraceMs: number;
}

/**
 * One instance's warm pool and idle GC under the operator (C-OP-3 item 4): today's `PoolReconciler` and
 * `GcReconciler`, unchanged, on a view of the shared pod informer, each in its own `ReconcileLoop`. A new
 * configuration (spec hash, pool size, timeouts) replaces the reconcilers — the pool then replaces its stale pods
 * by spec hash and never touches claimed ones (C-CTL-2). Loops run only while this operator leads.
 */
export class InstanceWorkers {
  readonly view: InstancePodView;
  private settingsKey = '';
  private settings?: WorkerSettings;
  private pool?: ReconcileLoop;
  private gc?: ReconcileLoop;
  private term?: AbortController;
  private leader?: AbortSignal;
  private readonly offChange: () => void;

  constructor(
    readonly instance: string,
    private readonly deps: InstanceWorkerDeps,
  ) {
    this.view = new InstancePodView(deps.pods, instance);
    const trigger = (): void => {
      this.pool?.trigger();
      this.gc?.trigger();
    };
    const offPods = this.view.onChange(trigger);
    const offState = this.view.onStateChange(trigger);
    this.offChange = () => (offPods(), offState());
  }

  /** The pool's counts now (from the cache), for the instance's status. */
  counts(desired: number, podConfig: SandboxPodConfig): PoolCounts {
    return planPool({ pods: this.view.pods(), desired, specHash: sandboxSpecHash(podConfig), pendingCreates: 0 }).counts;
  }

  /** Applies `settings`; a change restarts the loops (with the current term, when leading). */
  configure(settings: WorkerSettings): void {
    const key = canonicalJson({ hash: sandboxSpecHash(settings.podConfig), pool: settings.poolSize, gc: settings.gc ?? null, gated: settings.egressGate !== undefined });
    if (key === this.settingsKey) return;
    this.settingsKey = key;
    this.settings = settings;
    this.restart();
  }

  /** Leadership began (its signal ends with it): the loops start. */
  lead(signal: AbortSignal): void {
    this.leader = signal;
    this.restart();
  }

  /** Stops the loops for good (instance torn down or gone) and waits for a pass in flight. */
  async stop(): Promise<void> {
    this.settings = undefined;
    this.settingsKey = 'stopped';
    this.offChange();
    await this.halt();
  }

  /** Pauses pool and GC (teardown: nothing may create pods while they are being deleted). */
  async pause(): Promise<void> {
    this.settings = undefined;
    this.settingsKey = 'paused';
    await this.halt();
  }

  private restart(): void {
    void this.halt();
    const settings = this.settings;
    if (!settings || !this.leader || this.leader.aborted) return;
    const term = new AbortController();
    this.term = term;
    const signal = AbortSignal.any([this.leader, term.signal]);
    const { deps } = this;
    const shared = { api: deps.api, informer: this.view, clock: deps.clock, wallClock: deps.wallClock, metrics: deps.metrics, logger: deps.logger, writeTimeoutMs: deps.writeTimeoutMs, isLeader: deps.isLeader };
    const loop = (name: string, pass: (s: AbortSignal) => Promise<{ requeueAfterMs?: number }>): ReconcileLoop =>
      new ReconcileLoop({ name: `${name} ${this.instance}`, pass, clock: deps.clock, random: deps.random, logger: deps.logger, onError: (e) => deps.metrics.error(name as 'pool' | 'gc', e) });
    if (settings.poolSize !== undefined) {
      const pool = new PoolReconciler({ ...shared, podConfig: settings.podConfig, desired: settings.poolSize, randomBytes: deps.randomBytes, random: deps.random, egressGate: settings.egressGate });
      this.pool = loop('pool', (s) => pool.pass(s));
      this.pool.start(signal);
    }
    if (settings.gc !== undefined) {
      const gc = new GcReconciler({ ...shared, instance: this.instance, idleTimeoutMs: settings.gc.idleTimeoutMs, maxSessionAgeMs: settings.gc.maxSessionAgeMs, orphanGraceMs: deps.orphanGraceMs });
      this.gc = loop('gc', (s) => gc.pass(s));
      this.gc.start(signal);
    }
  }

  private async halt(): Promise<void> {
    this.term?.abort();
    this.term = undefined;
    const loops = [this.pool, this.gc];
    this.pool = undefined;
    this.gc = undefined;
    await Promise.all(loops.map((l) => l?.idle()));
  }
}
