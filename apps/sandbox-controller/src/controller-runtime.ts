import { SESSION_ID_LABEL, controllerLeaseName, sandboxSpecHash, type RandomBytes } from '@cli-mcp/podspec';
import { errorText, type Clock } from '@cli-mcp/common';
import type { EgressGate, LeaseApi } from '@cli-mcp/kube';
import type { ControllerConfig } from './config/controller-config.js';
import type { ControllerLogger } from './controller-logger.js';
import { ElectionTiming } from './election/election-timing.js';
import { LeaderElector, type ElectionRole } from './election/leader-elector.js';
import { GcReconciler } from './gc/gc-reconciler.js';
import type { ControllerKubeApi } from './kube/controller-kube-api.port.js';
import type { PodChange, PodInformer } from '@cli-mcp/kube';
import type { ControllerMetrics } from './metrics/controller-metrics.js';
import { planPool } from './pool/pool-plan.js';
import { PoolReconciler } from './pool/pool-reconciler.js';
import { ShortfallTracker, type PoolHealth } from './pool/shortfall-tracker.js';
import { ReconcileLoop } from './reconcile/reconcile-loop.js';

/** Time, chance and logging: what every runtime of this app (controller, operator, an instance's workers) is given. */
export interface ProcessPorts {
  readonly clock: Clock;
  readonly wallClock: () => Date;
  readonly random: () => number;
  readonly randomBytes: RandomBytes;
  readonly logger: ControllerLogger;
}

/** The side effects the runtime is built on (real adapters in main.ts, fakes in the specs). */
export interface ControllerPorts extends ProcessPorts {
  readonly api: ControllerKubeApi;
  readonly leases: LeaseApi;
  readonly informer: PodInformer;
  readonly metrics: ControllerMetrics;
  /** With `--egress-gateway`: the fail-closed gate the pool asks before every refill (C-EGR-6). */
  readonly egressGate?: Pick<EgressGate, 'check'>;
}

/** What `/health` reports (C-CTL-8). */
export interface ControllerStatus {
  readonly role: ElectionRole;
  readonly identity: string;
  /** The observed Lease holder (`''` released; undefined never read). */
  readonly holder: string | undefined;
  /** Why the API is not usable now (informer or Lease failing), undefined when it is. */
  readonly apiProblem: string | undefined;
  readonly pool: PoolHealth;
  /** Why the pool refill is paused (the closed egress gate, C-EGR-6); absent when it is not. */
  readonly refillPaused?: string;
  /** Under `--operator`: how many CliMcpInstances it sees (the pool is then their sum). */
  readonly instances?: number;
}

/** What `/health` reads: the controller's runtime, or the operator's. */
export interface StatusSource {
  status(): ControllerStatus;
}

/**
 * The controller process: every candidate runs the informer (followers watch and wait, with a warm cache) and
 * campaigns for the instance Lease; only the leader runs the pool and GC loops, with its term's signal, so they
 * stop the moment leadership ends (C-CTL-1). Informer events trigger both loops (watch-driven refill, C-CTL-2);
 * the GC loop also requeues itself at the soonest expiry (C-CTL-3).
 */
export class ControllerRuntime implements StatusSource {
  readonly elector: LeaderElector;
  private readonly pool: PoolReconciler;
  private readonly poolLoop: ReconcileLoop;
  private readonly gcLoop: ReconcileLoop;
  private readonly shortfall: ShortfallTracker;
  private readonly specHash: string;
  private leaseProblem: string | undefined;
  private readonly unsubscribe: Array<() => void> = [];

  constructor(
    private readonly config: ControllerConfig,
    private readonly ports: ControllerPorts,
  ) {
    const { metrics, logger, clock, random } = ports;
    const timing = new ElectionTiming(config.leaseDurationMs);
    this.specHash = sandboxSpecHash(config.podConfig);
    this.elector = new LeaderElector({
      api: ports.leases,
      leaseName: controllerLeaseName(config.podConfig.instanceName),
      identity: config.identity,
      timing,
      clock,
      wallClock: ports.wallClock,
      random,
      logger,
      onStartedLeading: (term) => {
        metrics.leader.set(1);
        this.poolLoop.start(term);
        this.gcLoop.start(term);
      },
      onStoppedLeading: () => metrics.leader.set(0),
      onNewLeader: (holder) => logger.info('lease holder observed', { holder: holder || '(released)' }),
      onAttempt: (error) => this.leaseAttempted(error),
    });
    const isLeader = (): boolean => this.elector.isLeader;
    const shared = { api: ports.api, informer: ports.informer, clock, wallClock: ports.wallClock, metrics, logger, writeTimeoutMs: timing.writeTimeoutMs, isLeader };
    this.pool = new PoolReconciler({ ...shared, podConfig: config.podConfig, desired: config.pool.size, randomBytes: ports.randomBytes, random, egressGate: ports.egressGate });
    const gc = new GcReconciler({
      ...shared,
      instance: config.podConfig.instanceName,
      idleTimeoutMs: config.gc.idleTimeoutMs,
      maxSessionAgeMs: config.gc.maxSessionAgeMs,
      orphanGraceMs: config.gc.orphanSecretGraceMs,
    });
    this.poolLoop = new ReconcileLoop({ name: 'pool', pass: (s) => this.pool.pass(s), clock, random, logger, onError: (e) => metrics.error('pool', e) });
    this.gcLoop = new ReconcileLoop({ name: 'gc', pass: (s) => gc.pass(s), clock, random, logger, onError: (e) => metrics.error('gc', e) });
    this.shortfall = new ShortfallTracker(config.pool.shortfallGraceMs, clock, (short) => {
      metrics.poolShortfall.set(short ? 1 : 0);
      if (short) logger.warn('warm pool short for longer than --pool-shortfall-grace', { ...this.shortfall.health() });
    });
    metrics.poolDesired.set(config.pool.size);
    metrics.leader.set(0);
  }

  start(): void {
    const { informer } = this.ports;
    this.unsubscribe.push(
      informer.onChange((change) => this.changed(change)),
      informer.onStateChange(() => this.changed()),
    );
    informer.start();
    this.elector.start();
  }

  /** SIGTERM: step down (the loops stop), release the Lease so a follower takes over at once, stop watching. */
  async stop(options: { release?: boolean } = {}): Promise<void> {
    await this.elector.stop(options);
    await Promise.all([this.poolLoop.idle(), this.gcLoop.idle()]);
    for (const off of this.unsubscribe.splice(0)) off();
    this.shortfall.stop();
    await this.ports.informer.stop();
  }

  status(): ControllerStatus {
    const { informer } = this.ports;
    const apiProblem = !informer.synced ? (informer.problem ?? 'pods not listed yet') : (informer.problem ?? this.leaseProblem);
    const refillPaused = this.elector.isLeader ? this.pool.egressPaused : undefined;
    return {
      role: this.elector.role, identity: this.elector.identity, holder: this.elector.holder, apiProblem, pool: this.shortfall.health(),
      ...(refillPaused === undefined ? {} : { refillPaused }),
    };
  }

  private changed(change?: PodChange): void {
    if (change && this.elector.isLeader && isClaim(change)) this.ports.metrics.claimsObserved.inc();
    this.poolLoop.trigger();
    this.gcLoop.trigger();
    if (!this.ports.informer.synced) return;
    const { counts } = planPool({ pods: this.ports.informer.pods(), desired: this.config.pool.size, specHash: this.specHash, pendingCreates: 0 });
    this.ports.metrics.poolReady.set(counts.ready);
    this.shortfall.update(counts.desired, counts.ready);
  }

  private leaseAttempted(error: unknown): void {
    const problem = error === undefined ? undefined : `lease ${controllerLeaseName(this.config.podConfig.instanceName)}: ${errorText(error)}`;
    if (error !== undefined) this.ports.metrics.error('election', error);
    if (problem !== undefined && this.leaseProblem === undefined) this.ports.logger.warn('leader election cannot reach the API; retrying', { error: errorText(error) });
    if (problem === undefined && this.leaseProblem !== undefined) this.ports.logger.info('leader election reaches the API again');
    this.leaseProblem = problem;
  }
}

/** A pool pod gained a session label: a server claimed it (C-CTL-4 "claims observed"). */
function isClaim(change: PodChange): boolean {
  return change.type === 'updated' && change.previous?.metadata?.labels?.[SESSION_ID_LABEL] === undefined && change.pod.metadata?.labels?.[SESSION_ID_LABEL] !== undefined;
}
