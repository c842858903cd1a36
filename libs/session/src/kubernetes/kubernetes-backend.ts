import type { V1Pod } from '@kubernetes/client-node';
import { deriveSessionToken } from '@cli-mcp/auth';
import { SESSION_ID_LABEL, assignedSelector, authSecretName, sessionPodName, type SandboxPodConfig, isLive, selectSessionPod } from '@cli-mcp/podspec';
import { systemClock, type Clock, errorText } from '@cli-mcp/common';
import type { FindOptions, SandboxBackend, SandboxHandle } from '../sandbox-backend.port.js';
import { SessionError, SessionErrorCode } from '../session-error.js';
import type { SessionMetrics } from '../session-metrics.js';
import { abortedAcquisition, type AbortCause, type AcquireContext, type Acquired } from './acquire-context.js';
import { agentHealthProbe, isProbeable, probeOnce, type AgentProbe } from './agent-probe.js';
import { ActivityToucher } from './activity-toucher.js';
import { claimUnassignedPod } from './claim.js';
import { deletePodAndSecret } from './cleanup.js';
import { createSessionPod } from './create.js';
import { discoverSessionPod } from './discover.js';
import { agentUrlOf, podName } from './format.js';
import { type KubeApi, isNotFound } from '@cli-mcp/kube';
import {
  KUBERNETES_DEFAULTS, silentLogger, type KubernetesAgentPort, type KubernetesBackendLogger, type KubernetesBackendOptions,
} from './kubernetes-backend.options.js';
import { PodWaitError, waitForPodReady } from './pod-readiness.js';
import { deliverToken, type TokenDelivery } from '../token-delivery.js';

/**
 * The `kubernetes` sandbox backend: one hardened pod per session, any number of stateless server replicas
 * (contract §6). Replicas coordinate only through the API server — labels, deterministic names, AlreadyExists
 * and resourceVersion preconditions — never through each other. The SessionManager above owns the replica
 * cache, per-session single flight and the agent recovery rules; this class finds, claims or creates pods.
 */
export class KubernetesBackend implements SandboxBackend {
  readonly kind = 'kubernetes' as const;
  private readonly api: KubeApi;
  private readonly agent: KubernetesAgentPort;
  private readonly hmacKey: Buffer;
  private readonly cfg: SandboxPodConfig;
  private readonly clock: Clock;
  private readonly wallClock: () => Date;
  private readonly logger: KubernetesBackendLogger;
  private readonly metrics?: SessionMetrics;
  private readonly readyTimeoutMs: number;
  private readonly probe?: AgentProbe;
  private readonly requestTimeoutMs: number;
  private readonly cleanupTimeoutMs: number;
  private readonly healthTimeoutMs: number;
  private readonly toucher: ActivityToucher;
  /** In-flight acquisitions per session, so DELETE and shutdown can stop them. */
  private readonly acquiring = new Map<string, Set<AbortController>>();
  /** Session → the pod (uid, container restarts) this replica last handed out (recreate notice); bounded. */
  private readonly handedOut = new Map<string, { uid: string; restarts: number }>();
  private stopping = false;

  constructor(options: KubernetesBackendOptions) {
    if (options.hmacKey.length === 0) throw new Error('KubernetesBackend: hmacKey must not be empty');
    if (options.podConfig.namespace !== options.api.namespace) {
      throw new Error(`KubernetesBackend: podConfig namespace "${options.podConfig.namespace}" differs from the API namespace "${options.api.namespace}"`);
    }
    this.api = options.api;
    this.agent = options.agentClient;
    this.hmacKey = options.hmacKey;
    this.cfg = options.podConfig;
    this.clock = options.clock ?? systemClock;
    this.wallClock = options.wallClock ?? (() => new Date());
    this.logger = options.logger ?? silentLogger;
    this.metrics = options.metrics;
    this.readyTimeoutMs = options.readyTimeoutMs ?? KUBERNETES_DEFAULTS.readyTimeoutMs;
    if (options.directProbe ?? true) this.probe = agentHealthProbe(this.agent, this.cfg.agentPort);
    this.requestTimeoutMs = options.requestTimeoutMs ?? KUBERNETES_DEFAULTS.requestTimeoutMs;
    this.cleanupTimeoutMs = options.cleanupTimeoutMs ?? KUBERNETES_DEFAULTS.cleanupTimeoutMs;
    this.healthTimeoutMs = options.healthTimeoutMs ?? KUBERNETES_DEFAULTS.healthTimeoutMs;
    this.toucher = new ActivityToucher({
      api: this.api,
      clock: this.clock,
      wallClock: this.wallClock,
      logger: this.logger,
      intervalMs: options.activityIntervalMs ?? KUBERNETES_DEFAULTS.activityIntervalMs,
      timeoutMs: this.cleanupTimeoutMs,
      maxSessions: KUBERNETES_DEFAULTS.maxRememberedSessions,
    });
  }

  /** Discover → claim → rediscover after a failed claim → create (C-K8S-4); waits for readiness (C-K8S-5). */
  async acquire(sessionId: string, signal: AbortSignal): Promise<SandboxHandle> {
    if (this.stopping) throw abortedAcquisition('shutdown');
    const { ctx, done } = this.context(sessionId, signal);
    try {
      const acquired = await this.acquireWith(ctx);
      if (ctx.signal.aborted) throw abortedAcquisition(ctx.abortCause());
      return this.handOut(sessionId, acquired);
    } catch (error) {
      // A write in flight when DELETE aborted us may land after DELETE's own deletes: remove what may be ours.
      if (ctx.abortCause() === 'released') await deletePodAndSecret(ctx, sessionPodName(this.cfg.instanceName, sessionId));
      throw error;
    } finally {
      done();
    }
  }

  /**
   * Discovery only (cancel and progress routing, C-MCP-9/10): the session's serving pod, or undefined. Never creates.
   * "Serving" is what acquisition hands out: Ready, or — before the kubelet's first readiness probe — a running pod
   * whose agent answers `/health` when asked once (issue 11). Without the second half, a cancel reaching another
   * replica in a new pod's first seconds found no pod while its command ran. With `waitForStart` (cancels), a pod
   * that is still starting is waited for, bounded by `signal` and the ready timeout: the replica creating it sends
   * the command as soon as it serves, and a cancel that gave up on it before would have let that command run.
   */
  async find(sessionId: string, signal: AbortSignal, options: FindOptions = {}): Promise<SandboxHandle | undefined> {
    let items: V1Pod[];
    try {
      ({ items } = await this.api.listPods({ labelSelector: assignedSelector(this.cfg.instanceName, sessionId) }, this.bounded(signal, this.requestTimeoutMs)));
    } catch (error) {
      if (signal.aborted) throw abortedAcquisition('caller');
      throw new SessionError(SessionErrorCode.BackendFailure, `resolve pod: discover pod: list pods: ${errorText(error)}`, { cause: error });
    }
    const { ready, pending } = selectSessionPod(items);
    if (ready) return this.handle(sessionId, ready, 'discover', false);
    if (!pending) return undefined;
    if (options.waitForStart) {
      const serving = await waitForPodReady({ api: this.api, clock: this.clock }, pending, this.readyTimeoutMs, signal, { probe: this.probe }).catch((error: unknown) => {
        if (signal.aborted) throw abortedAcquisition('caller');
        if (error instanceof PodWaitError) return undefined;
        throw new SessionError(SessionErrorCode.BackendFailure, `resolve pod: wait for pod: ${errorText(error)}`, { cause: error });
      });
      return serving && this.handle(sessionId, serving, 'discover', false);
    }
    // The pod acquisition would hand out before Ready: probe-able, and its agent answers one bounded /health.
    if (this.probe && isProbeable(pending) && (await probeOnce(this.clock, this.probe, pending, signal))) {
      return this.handle(sessionId, pending, 'discover', false);
    }
    return undefined;
  }

  /**
   * Re-delivers the token to an agent that restarted unassigned (C-K8S-7: a claimed pod's container restarted;
   * its token came by `/assign`, not env), or whose claimer has not assigned it yet. The pod is re-read first so
   * a token is never handed to a pod that no longer carries this session's label. Same delivery path as the
   * claim (`deliverToken`): our token already there (a sibling was first) is success; another token is an error.
   */
  async reassign(handle: SandboxHandle, signal: AbortSignal): Promise<void> {
    let pod: V1Pod;
    try {
      pod = await this.api.getPod(handle.sandboxName, this.bounded(signal, this.requestTimeoutMs));
    } catch (error) {
      if (signal.aborted) throw abortedAcquisition('caller');
      if (isNotFound(error)) throw new SessionError(SessionErrorCode.SandboxUnavailable, `reassign token: pod "${handle.sandboxName}" is gone`, { cause: error });
      throw new SessionError(SessionErrorCode.BackendFailure, `reassign token: get pod "${handle.sandboxName}": ${errorText(error)}`, { cause: error });
    }
    if (pod.metadata?.labels?.[SESSION_ID_LABEL] !== handle.sessionId || !isLive(pod)) {
      throw new SessionError(SessionErrorCode.SandboxUnavailable, `reassign token: pod "${handle.sandboxName}" no longer belongs to the session`);
    }
    let delivery: TokenDelivery;
    try {
      delivery = await deliverToken(this.agent, handle.agentUrl, handle.token, signal);
    } catch (error) {
      if (signal.aborted) throw abortedAcquisition('caller');
      throw new SessionError(SessionErrorCode.AgentFailure, `reassign token: ${errorText(error)}`, { cause: error });
    }
    if (delivery === 'foreign') {
      throw new SessionError(SessionErrorCode.SandboxUnavailable, `reassign token: the agent of pod "${handle.sandboxName}" holds another session's token`);
    }
    this.logger.info('re-delivered the session token to the agent', { session_id: handle.sessionId, pod: handle.sandboxName });
  }

  /** Throttled, fire-and-forget last-activity patch (C-K8S-6). Never throws, never awaited by the command. */
  touch(handle: SandboxHandle): void {
    try {
      this.toucher.touch(handle.sessionId, handle.sandboxName);
    } catch (error) {
      this.logger.warn('failed to update last-activity annotation', { session_id: handle.sessionId, error: errorText(error) });
    }
  }

  /**
   * Ends the session (C-K8S-8): stops this replica's in-flight acquisitions of it, deletes every pod carrying
   * the session's instance-scoped labels (not waiting for termination) and the session Secret by its name.
   * Secret names are derived from (instance, session) and collision-free across instances (C-K8S-2), so the
   * name alone proves ownership — no `secrets get` needed (C-K8S-10). NotFound is success; idempotent.
   */
  async end(sessionId: string, signal: AbortSignal): Promise<void> {
    for (const controller of this.acquiring.get(sessionId) ?? []) controller.abort('released' satisfies AbortCause);
    this.toucher.forget(sessionId);
    this.handedOut.delete(sessionId);
    const problems: string[] = [];
    let pods: V1Pod[];
    try {
      ({ items: pods } = await this.api.listPods({ labelSelector: assignedSelector(this.cfg.instanceName, sessionId) }, this.bounded(signal, this.requestTimeoutMs)));
    } catch (error) {
      throw new SessionError(SessionErrorCode.BackendFailure, `list pods for cleanup: ${errorText(error)}`, { cause: error });
    }
    await Promise.all(
      pods.map(async (pod) => {
        try {
          await this.api.deletePod(podName(pod), this.bounded(signal, this.requestTimeoutMs));
        } catch (error) {
          if (!isNotFound(error)) problems.push(`delete pod ${podName(pod)}: ${errorText(error)}`);
        }
      }),
    );
    const secret = authSecretName(this.cfg.instanceName, sessionId);
    try {
      await this.api.deleteSecret(secret, this.bounded(signal, this.requestTimeoutMs));
    } catch (error) {
      if (!isNotFound(error)) problems.push(`delete secret ${secret}: ${errorText(error)}`);
    }
    if (problems.length > 0) throw new SessionError(SessionErrorCode.BackendFailure, problems.join('; '));
    this.logger.info('ended session', { session_id: sessionId, pods: pods.length });
  }

  /** Lists pods in the namespace with `limit=1` under a 5 s bound — never a cluster-scoped call (C-HTTP-2). */
  async checkHealth(signal: AbortSignal): Promise<void> {
    try {
      await this.api.listPods({ limit: 1 }, this.bounded(signal, this.healthTimeoutMs));
    } catch (error) {
      throw new SessionError(SessionErrorCode.BackendFailure, `kubernetes API: list pods in namespace "${this.api.namespace}": ${errorText(error)}`, { cause: error });
    }
  }

  /** Stops in-flight acquisitions (their pods are left for siblings) and waits for sent activity patches. */
  async shutdown(): Promise<void> {
    this.stopping = true;
    for (const controllers of this.acquiring.values()) for (const controller of controllers) controller.abort('shutdown' satisfies AbortCause);
    await this.toucher.drain();
  }

  private async acquireWith(ctx: AcquireContext): Promise<Acquired> {
    const first = await discoverSessionPod(ctx, 'discover pod');
    if (first.found) return first.found;
    const claim = await claimUnassignedPod(ctx);
    if (claim.kind === 'claimed') return { pod: claim.pod, path: 'claim', hadEarlierSandbox: first.hadEarlierPod };
    if (claim.kind === 'failed') {
      // A sibling may have claimed a pod for this session meanwhile (Go §4.4 "claim-fail rediscover").
      const again = await discoverSessionPod(ctx, 'discover pod after claim');
      if (again.found) return again.found;
    }
    return createSessionPod(ctx, first.hadEarlierPod);
  }

  private context(sessionId: string, callerSignal: AbortSignal): { ctx: AcquireContext; done: () => void } {
    const controller = new AbortController();
    const onCallerAbort = (): void => controller.abort('caller' satisfies AbortCause);
    if (callerSignal.aborted) onCallerAbort();
    else callerSignal.addEventListener('abort', onCallerAbort, { once: true });
    const set = this.acquiring.get(sessionId) ?? new Set<AbortController>();
    set.add(controller);
    this.acquiring.set(sessionId, set);
    const signal = controller.signal;
    const ctx: AcquireContext = {
      api: this.api,
      agent: this.agent,
      cfg: this.cfg,
      clock: this.clock,
      wallClock: this.wallClock,
      logger: this.logger,
      metrics: this.metrics,
      sessionId,
      token: deriveSessionToken(this.hmacKey, sessionId),
      readyTimeoutMs: this.readyTimeoutMs,
      probe: this.probe,
      signal,
      abortCause: () => (signal.aborted ? (signal.reason as AbortCause) : undefined),
      request: () => this.bounded(signal, this.requestTimeoutMs),
      cleanup: () => AbortSignal.timeout(this.cleanupTimeoutMs),
      stamped: () => this.toucher.stamped(sessionId),
    };
    const done = (): void => {
      callerSignal.removeEventListener('abort', onCallerAbort);
      set.delete(controller);
      if (set.size === 0 && this.acquiring.get(sessionId) === set) this.acquiring.delete(sessionId);
    };
    return { ctx, done };
  }

  /**
   * Records what this replica handed out and builds the handle. `recreated` (C-K8S-7) = evidence that the shell
   * state of the session was lost: the acquisition found only an earlier sandbox's traces (see `Acquired`), or
   * this replica handed out a different pod before, or the same pod's container restarted since.
   */
  private handOut(sessionId: string, acquired: Acquired): SandboxHandle {
    const seen = { uid: acquired.pod.metadata?.uid ?? podName(acquired.pod), restarts: restartsOf(acquired.pod) };
    const previous = this.handedOut.get(sessionId);
    const lost = previous !== undefined && (previous.uid !== seen.uid || previous.restarts < seen.restarts);
    this.handedOut.delete(sessionId);
    this.handedOut.set(sessionId, seen);
    while (this.handedOut.size > KUBERNETES_DEFAULTS.maxRememberedSessions) this.handedOut.delete(this.handedOut.keys().next().value as string);
    return this.handle(sessionId, acquired.pod, acquired.path, acquired.hadEarlierSandbox || lost);
  }

  private handle(sessionId: string, pod: V1Pod, path: Acquired['path'], recreated: boolean): SandboxHandle {
    return {
      sessionId,
      agentUrl: agentUrlOf(pod.status?.podIP ?? '', this.cfg.agentPort),
      token: deriveSessionToken(this.hmacKey, sessionId),
      sandboxName: podName(pod),
      path,
      recreated,
    };
  }

  private bounded(signal: AbortSignal, timeoutMs: number): AbortSignal {
    return AbortSignal.any([signal, AbortSignal.timeout(timeoutMs)]);
  }
}

/** Container restarts of the pod (a restart loses the shell state, and a claimed pod's token). */
function restartsOf(pod: V1Pod): number {
  return (pod.status?.containerStatuses ?? []).reduce((sum, status) => sum + (status.restartCount ?? 0), 0);
}
