import type { V1ObjectMeta } from '@kubernetes/client-node';
import { INSTANCE_LABEL } from '@cli-mcp/podspec';
import { errorText } from '@cli-mcp/common';
import { SERVICE_NAME_LABEL, type EgressGateApi, type LeaseApi } from '@cli-mcp/kube';
import type { ControllerStatus, ProcessPorts } from '../controller-runtime.js';
import { ElectionTiming } from '../election/election-timing.js';
import { LeaderElector } from '../election/leader-elector.js';
import type { ControllerKubeApi } from '../kube/controller-kube-api.port.js';
import type { ControllerMetrics } from '../metrics/controller-metrics.js';
import { ReconcileLoop } from '../reconcile/reconcile-loop.js';
import { childNames } from './children/child-names.js';
import { controllingInstance } from './children/owner.js';
import type { ObjectApi } from './kube/object-api.port.js';
import { allInformers, type OperatorCaches } from './operator-caches.js';
import { ChildWriter } from './reconcile/child-writer.js';
import { NETWORK_POLICIES } from './kube/resources.js';
import { EgressGates } from './reconcile/egress-gates.js';
import { InstanceReconciler } from './reconcile/instance-reconciler.js';
import { StatusWriter } from './reconcile/status-writer.js';
import { Teardown } from './reconcile/teardown.js';
import { kubeconfigSecretOf, type OperatorDefaults } from './spec/resolve-instance.js';
import { CachedSecretsControllerApi } from './workers/cached-controller-api.js';
import { WorkerRegistry } from './workers/worker-registry.js';

/** The Lease the operator's replicas elect their leader on (one per watched namespace, C-OP-6). */
export const OPERATOR_LEASE_NAME = 'cli-mcp-operator';

export interface OperatorSettings {
  readonly identity: string;
  readonly defaults: OperatorDefaults;
  readonly leaseDurationMs: number;
  readonly orphanSecretGraceMs: number;
  readonly poolShortfallGraceMs: number;
  /** `--egress-image` (RELATED_IMAGE_EGRESS): the gateway of `spec.proxy` instances. */
  readonly egressImage: string | undefined;
}

/** The side effects the operator is built on (real adapters in run-operator.ts, fakes in the specs). */
export interface OperatorPorts extends ProcessPorts {
  readonly caches: OperatorCaches;
  readonly api: ObjectApi;
  /** The controller's pod and Secret port (the pool and GC use it, with Secret lists served from the cache). */
  readonly controllerApi: ControllerKubeApi;
  readonly leases: LeaseApi;
  /** The two lists of the fail-closed egress gate (C-EGR-6), in the watched namespace. */
  readonly egressGateApi: EgressGateApi;
  /** Built with `perInstance`. */
  readonly metrics: ControllerMetrics;
}

/**
 * `sandbox-controller --operator` (C-OP-3, C-OP-6): every replica runs the informers (followers keep warm caches)
 * and campaigns for the namespace's operator Lease; the leader runs one reconcile loop per CliMcpInstance
 * (coalescing, with back-off) plus each instance's pool and GC, all stopped the moment leadership ends. Every
 * informer event is routed to the instance it concerns (a child by its owner reference, a pod or Secret by its
 * instance label, an admin Secret by its name); passes decide on the caches only and wait until every informer
 * has listed once.
 */
export class OperatorRuntime {
  readonly elector: LeaderElector;
  private readonly reconciler: InstanceReconciler;
  private readonly workers: WorkerRegistry;
  private readonly loops = new Map<string, ReconcileLoop>();
  private term?: AbortSignal;
  private leaseProblem: string | undefined;
  private readonly unsubscribe: Array<() => void> = [];

  constructor(
    private readonly settings: OperatorSettings,
    private readonly ports: OperatorPorts,
  ) {
    const { clock, logger, metrics, caches } = ports;
    const timing = new ElectionTiming(settings.leaseDurationMs);
    this.elector = new LeaderElector({
      api: ports.leases,
      leaseName: OPERATOR_LEASE_NAME,
      identity: settings.identity,
      timing,
      clock,
      wallClock: ports.wallClock,
      random: ports.random,
      logger,
      onStartedLeading: (term) => this.lead(term),
      onStoppedLeading: () => metrics.leader.set(0),
      onNewLeader: (holder) => logger.info('lease holder observed', { holder: holder || '(released)' }),
      onAttempt: (error) => this.leaseAttempted(error),
    });
    const isLeader = (): boolean => this.elector.isLeader;
    this.workers = new WorkerRegistry({
      pods: caches.pods,
      api: new CachedSecretsControllerApi(ports.controllerApi, caches.secrets),
      metrics,
      clock,
      wallClock: ports.wallClock,
      random: ports.random,
      randomBytes: ports.randomBytes,
      logger,
      writeTimeoutMs: timing.writeTimeoutMs,
      isLeader,
      orphanGraceMs: settings.orphanSecretGraceMs,
    });
    const status = new StatusWriter({ api: ports.api, wallClock: ports.wallClock, identity: settings.identity, logger });
    const common = { api: ports.api, caches, workers: this.workers, clock, logger, writeTimeoutMs: timing.writeTimeoutMs };
    this.reconciler = new InstanceReconciler({
      ...common,
      writer: new ChildWriter({ api: ports.api, lookup: (resource, name) => caches.children.get(resource.plural)?.get(name), clock }),
      status,
      teardown: new Teardown({ ...common, status }),
      defaults: settings.defaults,
      randomBytes: ports.randomBytes,
      shortfallGraceMs: settings.poolShortfallGraceMs,
      egressImage: settings.egressImage,
      egressGates: new EgressGates({ api: ports.egressGateApi, clock }),
      requeue: (name) => this.trigger(name),
    });
    metrics.leader.set(0);
  }

  start(): void {
    const { caches } = this.ports;
    const route = (name: string | undefined): void => {
      if (name !== undefined) this.trigger(name);
    };
    this.unsubscribe.push(
      caches.instances.onObjectChange((c) => route(c.object.metadata?.name)),
      caches.pods.onObjectChange((c) => route(c.object.metadata?.labels?.[INSTANCE_LABEL])),
      caches.secrets.onObjectChange((c) => this.secretOwners(c.object.metadata).forEach(route)),
      caches.endpointSlices.onObjectChange((c) => route(gatewayInstance(c.object.metadata?.labels?.[SERVICE_NAME_LABEL]))),
      ...[...caches.children.values()].map((informer) => informer.onObjectChange((c) => route(controllingInstance(c.object.metadata)))),
      // Another writer's NetworkPolicy may open or shut a spec.proxy instance's egress gate (C-EGR-6).
      caches.children.get(NETWORK_POLICIES.plural)!.onObjectChange((c) => {
        if (controllingInstance(c.object.metadata) === undefined) for (const cr of caches.instances.objects()) if (cr.spec?.proxy) route(cr.metadata.name);
      }),
      ...allInformers(caches).map((informer) => informer.onStateChange(() => this.triggerAll())),
    );
    for (const informer of allInformers(caches)) informer.start();
    this.elector.start();
  }

  /** SIGTERM: step down (loops stop), release the Lease so the other replica takes over at once, stop watching. */
  async stop(options: { release?: boolean } = {}): Promise<void> {
    await this.elector.stop(options);
    await Promise.all([...this.loops.values()].map((loop) => loop.idle()));
    await this.workers.stopAll();
    for (const off of this.unsubscribe.splice(0)) off();
    await Promise.all(allInformers(this.ports.caches).map((informer) => informer.stop()));
  }

  status(): ControllerStatus {
    const informers = allInformers(this.ports.caches);
    const apiProblem = informers.map((i) => i.problem).find((p) => p !== undefined) ?? this.leaseProblem;
    const instances = this.ports.caches.instances.objects();
    const pool = instances.reduce(
      (sum, cr) => ({ desired: sum.desired + (cr.status?.warmPoolDesired ?? 0), ready: sum.ready + (cr.status?.warmPoolReady ?? 0) }),
      { desired: 0, ready: 0 },
    );
    return { role: this.elector.role, identity: this.elector.identity, holder: this.elector.holder, apiProblem, pool: { ...pool, shortfall: false }, instances: instances.length };
  }

  private lead(term: AbortSignal): void {
    this.ports.metrics.leader.set(1);
    this.term = term;
    this.workers.lead(term);
    this.triggerAll();
  }

  private triggerAll(): void {
    for (const cr of this.ports.caches.instances.objects()) this.trigger(cr.metadata.name ?? '');
  }

  /** Asks for a pass of `name` (coalesced per instance); only the leader's loops run. */
  private trigger(name: string): void {
    if (!this.term || this.term.aborted || !this.elector.isLeader) return;
    if (!this.ports.caches.instances.get(name) && !this.loops.has(name)) return;
    let loop = this.loops.get(name);
    if (!loop || !loop.active) {
      loop = new ReconcileLoop({
        name: `instance ${name}`,
        pass: (signal) => this.pass(name, signal),
        clock: this.ports.clock,
        random: this.ports.random,
        logger: this.ports.logger,
        onError: (error) => this.ports.metrics.error('instance', error),
      });
      this.loops.set(name, loop);
      loop.start(this.term);
      return;
    }
    loop.trigger();
  }

  private async pass(name: string, signal: AbortSignal): Promise<{ requeueAfterMs?: number }> {
    // Decisions on a cache that has not listed yet would see children and Secrets as missing.
    if (!allInformers(this.ports.caches).every((informer) => informer.synced)) return {};
    const result = await this.reconciler.pass(name, signal);
    if (!this.ports.caches.instances.get(name)) this.loops.delete(name);
    return result;
  }

  /** The instances a Secret event concerns: its owner, its instance label, or the CRs naming it as kubeconfig. */
  private secretOwners(metadata: V1ObjectMeta | undefined): string[] {
    const names = new Set<string>();
    const owner = controllingInstance(metadata);
    if (owner) names.add(owner);
    const labelled = metadata?.labels?.[INSTANCE_LABEL];
    if (labelled) names.add(labelled);
    for (const cr of this.ports.caches.instances.objects()) {
      const instance = cr.metadata.name ?? '';
      // The Secrets an admin (or OpenShift's service CA) makes carry no owner: matched by their names.
      if (kubeconfigSecretOf(instance, cr.spec?.proxy) === metadata?.name || childNames(instance).tlsSecret === metadata?.name) names.add(instance);
    }
    return [...names];
  }

  private leaseAttempted(error: unknown): void {
    const problem = error === undefined ? undefined : `lease ${OPERATOR_LEASE_NAME}: ${errorText(error)}`;
    if (error !== undefined) this.ports.metrics.error('election', error);
    if (problem !== undefined && this.leaseProblem === undefined) this.ports.logger.warn('leader election cannot reach the API; retrying', { error: errorText(error) });
    if (problem === undefined && this.leaseProblem !== undefined) this.ports.logger.info('leader election reaches the API again');
    this.leaseProblem = problem;
  }
}

/** The instance whose egress gateway Service (`<i>-egress`, libs/podspec egressNames) an EndpointSlice belongs to. */
function gatewayInstance(service: string | undefined): string | undefined {
  return service?.endsWith(GATEWAY_SUFFIX) ? service.slice(0, -GATEWAY_SUFFIX.length) : undefined;
}
const GATEWAY_SUFFIX = '-egress';
