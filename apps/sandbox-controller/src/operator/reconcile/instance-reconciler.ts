import { Backoff, errorText, type Clock } from '@cli-mcp/common';
import { egressNames, sandboxWithoutDns, type RandomBytes, type SandboxPodConfig } from '@cli-mcp/podspec';
import { SERVICE_NAME_LABEL, closedGateText, egressGateVerdict, isAlreadyExists, isConflict, type GateEndpointSlice, type GateNetworkPolicy, type GateService } from '@cli-mcp/kube';
import type { ControllerLogger } from '../../controller-logger.js';
import { withBoundedSignal } from '../../reconcile/bounded-signal.js';
import type { PassResult } from '../../reconcile/reconcile-loop.js';
import { INSTANCE_FINALIZER, type CliMcpInstance } from '../api/climcpinstance.js';
import { WARM_POOL_READY } from '../api/conditions.js';
import { accessChildren } from '../children/access-children.js';
import { childNames } from '../children/child-names.js';
import type { DesiredChild } from '../children/desired-child.js';
import { planEgress } from '../children/egress.js';
import { ownerOf } from '../children/owner.js';
import { serverDeployment } from '../children/server-deployment.js';
import type { ObjectApi } from '../kube/object-api.port.js';
import { CLIMCP_INSTANCES, DEPLOYMENTS, NETWORK_POLICIES, SECRETS, SERVICES } from '../kube/resources.js';
import { cachedChild, type OperatorCaches } from '../operator-caches.js';
import { generatedSecrets } from '../secrets/generated-secrets.js';
import { checkSecrets, servesTls } from '../secrets/secret-gates.js';
import { resolveInstance, type OperatorDefaults, type ResolvedInstance } from '../spec/resolve-instance.js';
import type { WorkerRegistry } from '../workers/worker-registry.js';
import type { ChildWriter } from './child-writer.js';
import type { EgressGates } from './egress-gates.js';
import { decideConditions, deploymentProblem, type DeploymentLike, type StatusInputs } from './decide-status.js';
import { PoolReadiness } from './pool-readiness.js';
import { unhealthyPoolPods } from './pool-health.js';
import type { StatusWriter } from './status-writer.js';
import type { Teardown } from './teardown.js';

export interface InstanceReconcilerDeps {
  readonly api: ObjectApi;
  readonly caches: OperatorCaches;
  readonly writer: ChildWriter;
  readonly status: StatusWriter;
  readonly teardown: Teardown;
  readonly workers: WorkerRegistry;
  readonly defaults: OperatorDefaults;
  readonly clock: Clock;
  readonly randomBytes: RandomBytes;
  readonly logger: ControllerLogger;
  readonly writeTimeoutMs: number;
  readonly shortfallGraceMs: number;
  /** The operator's `--egress-image` (spec.proxy's gateway); undefined = such instances are refused. */
  readonly egressImage: string | undefined;
  readonly egressGates: EgressGates;
  /** Asks for another pass of `name` (a shortfall outlasted its grace). */
  readonly requeue: (name: string) => void;
}

/**
 * One reconcile pass of a CliMcpInstance (C-OP-3), decided on the informers' caches, in the issue's order: the
 * finalizer; the generated Secrets (made once, never overwritten); the children, each owned by the CR; the
 * instance's pool and GC; the status (with an Event per condition change). Every step is level-based and every
 * write idempotent or resourceVersion-guarded, so a pass cut short (a leader killed mid-way) leaves nothing the
 * next pass — on any replica — cannot finish. A deleted CR goes to the teardown instead.
 */
export class InstanceReconciler {
  private readonly pools = new Map<string, PoolReadiness>();
  private readonly backoffs = new Map<string, Backoff>();

  constructor(private readonly deps: InstanceReconcilerDeps) {}

  async pass(name: string, signal: AbortSignal): Promise<PassResult> {
    const { caches } = this.deps;
    const cr = caches.instances.get(name);
    if (!cr) return this.forget(name);
    if (cr.metadata.deletionTimestamp) {
      const result = await this.deps.teardown.pass(cr, signal);
      if (result.done) await this.forget(name);
      return {};
    }
    if (!(cr.metadata.finalizers ?? []).includes(INSTANCE_FINALIZER)) {
      await this.bounded(signal, (s) => this.deps.api.mergePatch(CLIMCP_INSTANCES, name, { metadata: { finalizers: [...(cr.metadata.finalizers ?? []), INSTANCE_FINALIZER], resourceVersion: cr.metadata.resourceVersion } }, s)).catch(ignoreConflict);
      return {}; // the watch brings the CR with its finalizer
    }
    const resolved = resolveInstance(cr, this.deps.defaults);
    if (!resolved.ok) {
      await this.publish(cr, undefined, { reconciling: `spec cannot be used: ${resolved.errors.join('; ')}`, childProblems: [], pool: this.poolInputs(name, cr, undefined, 0) }, signal);
      return {};
    }
    try {
      const result = await this.reconcile(cr, resolved.instance, signal);
      this.backoffs.get(name)?.reset();
      return result;
    } catch (error) {
      if (signal.aborted) throw error;
      const delay = (this.backoffs.get(name) ?? this.backoffs.set(name, new Backoff({ initialMs: 1000, maxMs: 60_000, random: Math.random })).get(name)!).next();
      this.deps.logger.warn('instance reconcile failed; retrying', { instance: name, error: errorText(error), retry_in_ms: Math.round(delay) });
      await this.publish(cr, resolved.instance, { reconciling: `writing the instance's objects failed: ${errorText(error)}`, childProblems: [], pool: this.poolInputs(name, cr, resolved.instance, resolved.instance.warmPoolSize) }, signal).catch(() => undefined);
      return { requeueAfterMs: delay };
    }
  }

  private async reconcile(cr: CliMcpInstance, instance: ResolvedInstance, signal: AbortSignal): Promise<PassResult> {
    const { caches } = this.deps;
    const owner = ownerOf(cr);
    const names = childNames(instance.name);
    const kubeconfig = caches.secrets.get(instance.podConfig.kubeconfigSecret)?.metadata;
    const kubeconfigVersion = kubeconfig?.uid ? `${kubeconfig.uid}/${kubeconfig.resourceVersion ?? ''}` : 'absent';
    const egress = planEgress(instance, { owner, image: this.deps.egressImage, kubeconfigVersion });
    const gate = egress.kind === 'gateway' ? this.deps.egressGates.get(instance.name, instance.podConfig) : undefined;
    const serving = egress.kind !== 'refused';
    const problems: string[] = [];
    let blocked = false;

    // Generated Secrets: made once when missing (a deleted one is made again), never overwritten.
    const generated = generatedSecrets(instance.name);
    for (const secret of [generated.hmac, generated.auth]) {
      if (caches.secrets.get(secret.name)) continue;
      problems.push(`Secret ${secret.name} is being created`);
      await this.bounded(signal, (s) => this.deps.api.create(SECRETS, secret.build(owner, instance.podConfig.namespace, this.deps.randomBytes), s)).catch((error: unknown) => {
        if (!isAlreadyExists(error)) throw error;
      });
    }

    const children: DesiredChild[] = [...accessChildren(instance, owner), ...(egress.kind === 'gateway' ? egress.children : [])];
    const hmac = caches.secrets.get(generated.hmac.name);
    const auth = caches.secrets.get(generated.auth.name);
    // The server needs both Secrets' identities for its config hash; until the cache has them it waits.
    if (hmac?.metadata?.uid && auth?.metadata?.uid) {
      const tls = servesTls((n) => caches.secrets.get(n), names.tlsSecret);
      children.push(serverDeployment(instance, owner, { hmacUid: hmac.metadata.uid, authUid: auth.metadata.uid, tls }, serving ? instance.replicas : 0));
    } else if (problems.length === 0) problems.push('waiting for the generated Secrets to be seen');
    for (const child of children) {
      const state = await this.bounded(signal, (s) => this.deps.writer.ensure(child, owner, s));
      if (state.state !== 'ok') problems.push(state.message);
      if (state.state === 'blocked') blocked = true;
    }

    const secretProblem = checkSecrets((n) => caches.secrets.get(n), { kubeconfig: instance.podConfig.kubeconfigSecret, generated: [generated.hmac, generated.auth], tls: names.tlsSecret });
    // The pool waits for usable Secrets (its pods would not start) and stops when serving is refused (fail closed);
    // GC and pool both stay off an instance whose objects belong to someone else.
    const poolSize = blocked || (serving && secretProblem) ? undefined : serving ? instance.warmPoolSize : 0;
    this.deps.workers.get(instance.name).configure({
      podConfig: instance.podConfig,
      poolSize,
      gc: blocked ? undefined : { idleTimeoutMs: instance.idleTimeoutMs, maxSessionAgeMs: instance.maxSessionAgeMs },
      egressGate: gate,
    });
    // C-EGR-6: Ready only while the gate's verdict is open (gateway endpoints, policies in place) — decided on the
    // informers (watches only, C-OP-6); the pool and the server ask the gate itself, fresh, before every create.
    const egressShut = gate ? cachedEgressProblem(caches, instance.podConfig) : undefined;

    const deployment = cachedChild(caches, DEPLOYMENTS, names.server);
    await this.publish(cr, instance, {
      egressRefused: egress.kind === 'refused' ? egress.message : egressShut,
      secretProblem,
      childProblems: problems,
      deploymentProblem: deploymentProblem(deployment as DeploymentLike | undefined, instance.replicas),
      pool: this.poolInputs(instance.name, cr, instance, serving ? instance.warmPoolSize : 0),
    }, signal);
    return {};
  }

  private poolInputs(name: string, cr: CliMcpInstance, instance: ResolvedInstance | undefined, desired: number): StatusInputs['pool'] {
    const workers = this.deps.workers.get(name);
    const counts = instance ? workers.counts(desired, instance.podConfig) : { ready: 0 };
    const readiness = this.pools.get(name) ?? this.pools.set(name, new PoolReadiness(this.deps.shortfallGraceMs, this.deps.clock, () => this.deps.requeue(name), persistedFill(cr))).get(name)!;
    readiness.update(desired, counts.ready);
    return { desired, ready: counts.ready, unhealthy: unhealthyPoolPods(workers.view.pods()), filled: readiness.filled, shortfallPastGrace: readiness.shortfall };
  }

  private async publish(cr: CliMcpInstance, instance: ResolvedInstance | undefined, inputs: StatusInputs, signal: AbortSignal): Promise<void> {
    const decided = {
      conditions: decideConditions(inputs),
      warmPoolReady: inputs.pool.ready,
      warmPoolDesired: inputs.pool.desired,
      resolvedSandboxImage: instance?.podConfig.image ?? cr.status?.resolvedSandboxImage,
    };
    await this.bounded(signal, (s) => this.deps.status.publish(cr, decided, s)).catch(ignoreConflict);
  }

  private async forget(name: string): Promise<PassResult> {
    this.pools.get(name)?.stop();
    this.pools.delete(name);
    this.backoffs.delete(name);
    this.deps.egressGates.remove(name);
    await this.deps.workers.remove(name);
    return {};
  }

  private bounded<T>(signal: AbortSignal, request: (signal: AbortSignal) => Promise<T>): Promise<T> {
    return withBoundedSignal(signal, this.deps.clock, this.deps.writeTimeoutMs, request);
  }
}

/** A stale write (409): the watch brings the newer object and the next pass decides again. */
function ignoreConflict(error: unknown): void {
  if (!isConflict(error)) throw error;
}

/** Whether the stored status says the pool had filled (so a new leader does not flip Ready on the next claim). */
function persistedFill(cr: CliMcpInstance): { filled: boolean; desired: number } {
  const pool = cr.status?.conditions?.find((c) => c.type === WARM_POOL_READY);
  return { filled: pool?.status === 'True', desired: cr.status?.warmPoolDesired ?? 0 };
}

/** The gate's verdict (libs/kube egressGateVerdict) on the cached EndpointSlices and NetworkPolicies; text when shut. */
function cachedEgressProblem(caches: OperatorCaches, podConfig: SandboxPodConfig): string | undefined {
  const instance = podConfig.instanceName;
  const service = egressNames(instance).gateway;
  const slices = caches.endpointSlices.objects().filter((slice) => slice.metadata?.labels?.[SERVICE_NAME_LABEL] === service) as GateEndpointSlice[];
  const policies = (caches.children.get(NETWORK_POLICIES.plural)?.objects() ?? []) as GateNetworkPolicy[];
  // Without DNS the sandboxes need the Service's ClusterIP, as the gate itself does (libs/kube egress-gate).
  const cached = sandboxWithoutDns(podConfig) ? ((cachedChild(caches, SERVICES, service) as GateService | undefined) ?? 'missing') : 'unread';
  const verdict = egressGateVerdict(instance, slices, policies, cached);
  return verdict.open ? undefined : closedGateText(verdict);
}
