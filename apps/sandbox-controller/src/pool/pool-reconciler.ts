import type { V1Pod } from '@kubernetes/client-node';
import { SESSION_ID_LABEL, buildWarmPod, isTerminating, sandboxSpecHash, sandboxWithoutDns, warmPodName, withEgressProxyAddress, type RandomBytes, type SandboxPodConfig } from '@cli-mcp/podspec';
import { errorText } from '@cli-mcp/common';
import { closedGateText, isAlreadyExists, isConflict, isNotFound, type EgressGate, type EgressGateVerdict } from '@cli-mcp/kube';
import { preconditionsOf } from '../kube/controller-kube-api.port.js';
import { errorReason, type PoolDeletionReason } from '../metrics/controller-metrics.js';
import { Backoff } from '@cli-mcp/common';
import { withBoundedSignal } from '../reconcile/bounded-signal.js';
import type { PassResult } from '../reconcile/reconcile-loop.js';
import type { ReconcilerDeps } from '../reconcile/reconciler-deps.js';
import { planPool, type PoolCounts, type PoolPlan } from './pool-plan.js';

export interface PoolReconcilerOptions extends ReconcilerDeps {
  readonly podConfig: SandboxPodConfig;
  /** `--warm-pool-size`. */
  readonly desired: number;
  /** Pool pod names (`warmPodName`). */
  readonly randomBytes: RandomBytes;
  readonly random: () => number;
  /** With `--egress-gateway`: the fail-closed gate, asked before every refill (C-EGR-6). */
  readonly egressGate?: Pick<EgressGate, 'check'>;
}

/** A create answered but not yet seen by the informer is forgotten after this long (it was deleted meanwhile). */
const PENDING_TTL_MS = 60_000;
/** While the egress gate is shut the pool is looked at again this often (the Go operator's `proxyGateRetry`). */
const EGRESS_GATE_RETRY_MS = 2_000;
/** At most this many creates in flight per pass. */
const CREATE_CONCURRENCY = 5;

/**
 * One pass of the warm pool (C-CTL-2, C-CTL-6) over the informer's cache: replace broken and stale pods, trim the
 * surplus (each pod re-read first and skipped if a claim labelled it; the delete carries the re-read uid and
 * resourceVersion, so a claim landing after the re-read makes the delete fail with 409 instead of removing a
 * session's pod), create the deficit with the server's builder (`buildWarmPod`, no token). Passes are triggered by
 * the informer (a claim is refilled at once), never by a timer. A create the API rejects (admission 422, 403)
 * is logged once and retried after a back-off (5 s … 5 min) instead of hammering the API.
 */
export class PoolReconciler {
  private readonly specHash: string;
  private readonly pending = new Map<string, number>();
  private readonly rejections: Backoff;
  private blockedUntil = 0;
  private lastRejection?: string;
  private countsValue?: PoolCounts;
  private egressPause?: string;
  /** The gateway's address from the gate's last open verdict (`--sandbox-dns none`): new pods get it, others are stale. */
  private proxyAddress?: string;

  constructor(private readonly options: PoolReconcilerOptions) {
    this.specHash = sandboxSpecHash(options.podConfig);
    this.rejections = new Backoff({ initialMs: 5_000, maxMs: 300_000, random: options.random });
  }

  /** Why the refill is paused: the closed egress gate's text (for `/health`), undefined while it may create. */
  get egressPaused(): string | undefined {
    return this.egressPause;
  }

  /** The counts of the last pass (for `/health` on the leader). */
  get counts(): PoolCounts | undefined {
    return this.countsValue;
  }

  async pass(signal: AbortSignal): Promise<PassResult> {
    const { informer, clock } = this.options;
    if (!informer.synced) return {};
    const known = new Set(informer.pods().map((pod) => pod.metadata?.name));
    for (const [name, at] of this.pending) if (known.has(name) || clock.now() - at > PENDING_TTL_MS) this.pending.delete(name);

    await this.learnProxyAddress(signal);
    const plan = planPool({ pods: informer.pods(), desired: this.options.desired, specHash: this.specHash, proxyAddress: this.proxyAddress, pendingCreates: this.pending.size });
    this.record(plan);
    for (const { pod, reason } of plan.replace) await this.deleteObserved(pod, reason, signal);
    for (const pod of plan.trim) await this.trim(pod, signal);
    const blocked = await this.createDeficit(plan.create, signal);
    if (blocked !== undefined) return { requeueAfterMs: blocked };
    const oldestPending = Math.min(...this.pending.values());
    return this.pending.size > 0 ? { requeueAfterMs: oldestPending + PENDING_TTL_MS - clock.now() } : {};
  }

  private record(plan: PoolPlan): void {
    const { metrics } = this.options;
    const { counts } = plan;
    this.countsValue = counts;
    metrics.poolDesired.set(counts.desired);
    metrics.poolReady.set(counts.ready);
    metrics.poolPods.set({ state: 'ready' }, counts.ready);
    metrics.poolPods.set({ state: 'terminating' }, counts.terminating);
    metrics.poolPods.set({ state: 'broken' }, counts.broken);
    metrics.poolPods.set({ state: 'stale' }, counts.stale);
  }

  /** Broken or stale: delete with the cached uid/resourceVersion (a 409 means it changed: the next pass decides). */
  private async deleteObserved(pod: V1Pod, reason: PoolDeletionReason, signal: AbortSignal): Promise<void> {
    const preconditions = preconditionsOf(pod);
    if (!preconditions) return;
    await this.delete(pod.metadata?.name ?? '', preconditions, reason, signal);
  }

  private async trim(observed: V1Pod, signal: AbortSignal): Promise<void> {
    const name = observed.metadata?.name ?? '';
    if (!this.options.isLeader()) return;
    let pod: V1Pod;
    try {
      pod = await withBoundedSignal(signal, this.options.clock, this.options.writeTimeoutMs, (s) => this.options.api.getPod(name, s));
    } catch (error) {
      if (!isNotFound(error)) this.failed('re-read before trim', name, error);
      return;
    }
    // Stale list vs claim (Go §4.4): a pod claimed since the informer saw it is a session's now.
    if (pod.metadata?.labels?.[SESSION_ID_LABEL] !== undefined || isTerminating(pod)) return;
    const preconditions = preconditionsOf(pod);
    if (preconditions) await this.delete(name, preconditions, 'surplus', signal);
  }

  private async delete(name: string, preconditions: { uid: string; resourceVersion: string }, reason: PoolDeletionReason, signal: AbortSignal): Promise<void> {
    if (!this.options.isLeader()) return;
    try {
      await withBoundedSignal(signal, this.options.clock, this.options.writeTimeoutMs, (s) => this.options.api.deletePod(name, preconditions, s));
      this.options.metrics.poolDeletions.inc({ reason });
      this.options.logger.info('deleted pool pod', { pod: name, reason });
    } catch (error) {
      if (isConflict(error)) this.options.logger.debug('pool pod changed before its delete; kept', { pod: name, reason });
      else if (!isNotFound(error)) this.failed(`delete (${reason})`, name, error);
    }
  }

  /**
   * Creates `count` pool pods (one, then up to 5 at once). Returns a requeue delay while creates are blocked by a
   * failure.
   */
  private async createDeficit(count: number, signal: AbortSignal): Promise<number | undefined> {
    const { clock } = this.options;
    if (count === 0) return undefined;
    if (clock.now() < this.blockedUntil) return this.blockedUntil - clock.now();
    // The first create goes alone: when the API refuses it (a webhook, a quota), the others are not sent.
    if (!this.options.isLeader()) return undefined;
    if (!(await this.egressGateOpen(signal))) return EGRESS_GATE_RETRY_MS;
    let failure: unknown = await this.createOne(signal);
    let remaining = failure === undefined ? count - 1 : 0;
    const worker = async (): Promise<void> => {
      while (remaining > 0 && !signal.aborted && this.options.isLeader() && failure === undefined) {
        remaining--;
        failure = (await this.createOne(signal)) ?? failure;
      }
    };
    await Promise.all(Array.from({ length: Math.min(CREATE_CONCURRENCY, remaining) }, worker));
    if (failure === undefined) return undefined;
    const delay = this.rejections.next();
    this.blockedUntil = clock.now() + delay;
    const message = errorText(failure);
    // One clear event per distinct problem (an admission webhook or quota refusing every create), not one per try.
    const fields = { reason: errorReason(failure), error: message, retry_in_ms: Math.round(delay) };
    if (message !== this.lastRejection) this.options.logger.error('pool pod creation failed; backing off', fields);
    else this.options.logger.debug('pool pod creation still failing', fields);
    this.lastRejection = message;
    return delay;
  }

  /**
   * C-EGR-6: no pool pod is created while the gate is shut. The refill pauses — logged once per distinct reason —
   * and is retried every 2 s (EndpointSlices and policies are not watched); `/health` says why.
   */
  private async egressGateOpen(signal: AbortSignal): Promise<boolean> {
    const gate = this.options.egressGate;
    if (gate === undefined) return true;
    const verdict = await this.readGate(gate, signal);
    const pause = verdict.open ? undefined : closedGateText(verdict);
    if (pause !== this.egressPause) {
      if (pause === undefined) this.options.logger.info('egress gate open; pool refill resumes');
      else this.options.logger.error('pool refill paused', { reason: pause });
    }
    this.egressPause = pause;
    return pause === undefined;
  }

  /**
   * Without DNS the pods' gateway address is the gate's (C-EGR-1): the leader reads it at every pass (the verdict
   * is reused for up to 5 s), so a pool that needs no refill still notices a re-created Service and replaces its
   * pods. A follower deletes and creates nothing, so it reads nothing.
   */
  private async learnProxyAddress(signal: AbortSignal): Promise<void> {
    const gate = this.options.egressGate;
    if (gate !== undefined && sandboxWithoutDns(this.options.podConfig) && this.options.isLeader()) await this.readGate(gate, signal);
  }

  /** The gate's verdict; an open one's address is the one new pods get and old ones are judged by. */
  private async readGate(gate: Pick<EgressGate, 'check'>, signal: AbortSignal): Promise<EgressGateVerdict> {
    const verdict = await gate.check(signal);
    if (verdict.open && verdict.proxyAddress !== undefined) this.proxyAddress = verdict.proxyAddress;
    return verdict;
  }

  /** One create; the failure when the API refused or failed it (AlreadyExists of a random name is not one). */
  private async createOne(signal: AbortSignal): Promise<unknown> {
    const { podConfig, clock, metrics, logger } = this.options;
    const name = warmPodName(podConfig.instanceName, this.options.randomBytes);
    const pod = buildWarmPod(withEgressProxyAddress(podConfig, this.proxyAddress), name, this.options.wallClock());
    try {
      await withBoundedSignal(signal, clock, this.options.writeTimeoutMs, (s) => this.options.api.createPod(pod, s));
      this.pending.set(name, clock.now());
      metrics.poolCreations.inc({ outcome: 'created' });
      logger.info('created pool pod', { pod: name });
      if (this.lastRejection !== undefined) logger.info('pool pod creation works again', { pod: name });
      this.lastRejection = undefined;
      this.rejections.reset();
      return undefined;
    } catch (error) {
      if (isAlreadyExists(error) || signal.aborted) return undefined;
      metrics.poolCreations.inc({ outcome: errorReason(error) === 'unavailable' ? 'failed' : 'rejected' });
      metrics.error('pool', error);
      return error;
    }
  }

  private failed(what: string, name: string, error: unknown): void {
    this.options.metrics.error('pool', error);
    this.options.logger.warn(`pool: ${what} failed`, { pod: name, error: errorText(error) });
  }
}
