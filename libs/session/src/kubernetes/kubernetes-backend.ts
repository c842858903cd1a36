import type { V1Pod } from '@kubernetes/client-node';
import { deriveSessionToken } from '@cli-mcp/auth';
import { SESSION_ID_LABEL, assignedSelector, authSecretName, isLive, selectSessionPod } from '@cli-mcp/podspec';
import { systemClock, errorText } from '@cli-mcp/common';
import type { FindOptions, SandboxBackend, SandboxHandle } from '../sandbox-backend.port.js';
import { SessionError, SessionErrorCode } from '../session-error.js';
import { abortedAcquisition, type Acquired } from './acquire-context.js';
import { Acquisition, InFlightAcquisitions, bounded, type AcquisitionDeps } from './acquisition.js';
import { agentHealthProbe, isProbeable, probeOnce } from './agent-probe.js';
import { ActivityToucher } from './activity-toucher.js';
import { agentUrlOf, podName } from './format.js';
import { HandedOutPods } from './handed-out.js';
import { isNotFound } from '@cli-mcp/kube';
import { KUBERNETES_DEFAULTS, silentLogger, type KubernetesBackendOptions } from './kubernetes-backend.options.js';
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
  /** What every acquisition (and find, reassign, end) of this backend uses; one object, not re-listed per call. */
  private readonly deps: AcquisitionDeps;
  private readonly hmacKey: Buffer;
  private readonly healthTimeoutMs: number;
  private readonly toucher: ActivityToucher;
  private readonly acquiring = new InFlightAcquisitions();
  private readonly handedOut = new HandedOutPods(KUBERNETES_DEFAULTS.maxRememberedSessions);
  private stopping = false;

  constructor(options: KubernetesBackendOptions) {
    if (options.hmacKey.length === 0) throw new Error('KubernetesBackend: hmacKey must not be empty');
    if (options.podConfig.namespace !== options.api.namespace) {
      throw new Error(`KubernetesBackend: podConfig namespace "${options.podConfig.namespace}" differs from the API namespace "${options.api.namespace}"`);
    }
    this.hmacKey = options.hmacKey;
    this.healthTimeoutMs = options.healthTimeoutMs ?? KUBERNETES_DEFAULTS.healthTimeoutMs;
    const { api, podConfig: cfg, agentClient: agent } = options;
    const clock = options.clock ?? systemClock;
    const wallClock = options.wallClock ?? (() => new Date());
    const logger = options.logger ?? silentLogger;
    const cleanupTimeoutMs = options.cleanupTimeoutMs ?? KUBERNETES_DEFAULTS.cleanupTimeoutMs;
    this.toucher = new ActivityToucher({
      api,
      clock,
      wallClock,
      logger,
      intervalMs: options.activityIntervalMs ?? KUBERNETES_DEFAULTS.activityIntervalMs,
      timeoutMs: cleanupTimeoutMs,
      maxSessions: KUBERNETES_DEFAULTS.maxRememberedSessions,
    });
    this.deps = {
      api,
      agent,
      cfg,
      clock,
      wallClock,
      logger,
      metrics: options.metrics,
      egressGate: options.egressGate,
      probe: (options.directProbe ?? true) ? agentHealthProbe(agent, cfg.agentPort) : undefined,
      toucher: this.toucher,
      readyTimeoutMs: options.readyTimeoutMs ?? KUBERNETES_DEFAULTS.readyTimeoutMs,
      requestTimeoutMs: options.requestTimeoutMs ?? KUBERNETES_DEFAULTS.requestTimeoutMs,
      cleanupTimeoutMs,
    };
  }

  /**
   * One `Acquisition` per call, its steps in order (C-K8S-4): discover → claim → rediscover after a failed claim
   * → create; each waits for readiness (C-K8S-5). A DELETE or shutdown meanwhile aborts it (`end`, `shutdown`).
   */
  async acquire(sessionId: string, signal: AbortSignal): Promise<SandboxHandle> {
    if (this.stopping) throw abortedAcquisition('shutdown');
    const acquisition = this.start(sessionId, signal);
    try {
      const acquired = await this.steps(acquisition);
      acquisition.throwIfAborted();
      return this.handOut(sessionId, acquired);
    } catch (error) {
      await acquisition.rollback();
      throw error;
    } finally {
      this.finish(acquisition);
    }
  }

  /** The tiers in order; the first that yields a pod ends the acquisition. */
  private async steps(acquisition: Acquisition): Promise<Acquired> {
    const first = await acquisition.discover('discover pod');
    if (first.found) return first.found;
    await acquisition.passEgressGate();
    const claim = await acquisition.claim();
    if (claim.kind === 'claimed') return { pod: claim.pod, path: 'claim', hadEarlierSandbox: first.hadEarlierPod };
    if (claim.kind === 'failed') {
      // A sibling may have claimed a pod for this session meanwhile (Go §4.4 "claim-fail rediscover").
      const again = await acquisition.discover('discover pod after claim');
      if (again.found) return again.found;
    }
    return acquisition.create(first.hadEarlierPod);
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
      ({ items } = await this.deps.api.listPods({ labelSelector: assignedSelector(this.deps.cfg.instanceName, sessionId) }, bounded(signal, this.deps.requestTimeoutMs)));
    } catch (error) {
      if (signal.aborted) throw abortedAcquisition('caller');
      throw new SessionError(SessionErrorCode.BackendFailure, `resolve pod: discover pod: list pods: ${errorText(error)}`, { cause: error });
    }
    const { ready, pending } = selectSessionPod(items);
    if (ready) return this.handle(sessionId, ready, 'discover', false);
    if (!pending) return undefined;
    if (options.waitForStart) {
      const serving = await waitForPodReady(this.deps, pending, this.deps.readyTimeoutMs, signal, { probe: this.deps.probe }).catch((error: unknown) => {
        if (signal.aborted) throw abortedAcquisition('caller');
        if (error instanceof PodWaitError) return undefined;
        throw new SessionError(SessionErrorCode.BackendFailure, `resolve pod: wait for pod: ${errorText(error)}`, { cause: error });
      });
      return serving && this.handle(sessionId, serving, 'discover', false);
    }
    // The pod acquisition would hand out before Ready: probe-able, and its agent answers one bounded /health.
    if (this.deps.probe && isProbeable(pending) && (await probeOnce(this.deps.clock, this.deps.probe, pending, signal))) {
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
      pod = await this.deps.api.getPod(handle.sandboxName, bounded(signal, this.deps.requestTimeoutMs));
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
      delivery = await deliverToken(this.deps.agent, handle.agentUrl, handle.token, signal);
    } catch (error) {
      if (signal.aborted) throw abortedAcquisition('caller');
      throw new SessionError(SessionErrorCode.AgentFailure, `reassign token: ${errorText(error)}`, { cause: error });
    }
    if (delivery === 'foreign') {
      throw new SessionError(SessionErrorCode.SandboxUnavailable, `reassign token: the agent of pod "${handle.sandboxName}" holds another session's token`);
    }
    this.deps.logger.info('re-delivered the session token to the agent', { session_id: handle.sessionId, pod: handle.sandboxName });
  }

  /** Throttled, fire-and-forget last-activity patch (C-K8S-6). Never throws, never awaited by the command. */
  touch(handle: SandboxHandle): void {
    try {
      this.toucher.touch(handle.sessionId, handle.sandboxName);
    } catch (error) {
      this.deps.logger.warn('failed to update last-activity annotation', { session_id: handle.sessionId, error: errorText(error) });
    }
  }

  /**
   * Ends the session (C-K8S-8): stops this replica's in-flight acquisitions of it, deletes every pod carrying
   * the session's instance-scoped labels (not waiting for termination) and the session Secret by its name.
   * Secret names are derived from (instance, session) and collision-free across instances (C-K8S-2), so the
   * name alone proves ownership — no `secrets get` needed (C-K8S-10). NotFound is success; idempotent.
   */
  async end(sessionId: string, signal: AbortSignal): Promise<void> {
    this.acquiring.abort('released', sessionId);
    this.toucher.forget(sessionId);
    this.handedOut.forget(sessionId);
    const problems: string[] = [];
    let pods: V1Pod[];
    try {
      ({ items: pods } = await this.deps.api.listPods({ labelSelector: assignedSelector(this.deps.cfg.instanceName, sessionId) }, bounded(signal, this.deps.requestTimeoutMs)));
    } catch (error) {
      throw new SessionError(SessionErrorCode.BackendFailure, `list pods for cleanup: ${errorText(error)}`, { cause: error });
    }
    await Promise.all(
      pods.map(async (pod) => {
        try {
          await this.deps.api.deletePod(podName(pod), bounded(signal, this.deps.requestTimeoutMs));
        } catch (error) {
          if (!isNotFound(error)) problems.push(`delete pod ${podName(pod)}: ${errorText(error)}`);
        }
      }),
    );
    const secret = authSecretName(this.deps.cfg.instanceName, sessionId);
    try {
      await this.deps.api.deleteSecret(secret, bounded(signal, this.deps.requestTimeoutMs));
    } catch (error) {
      if (!isNotFound(error)) problems.push(`delete secret ${secret}: ${errorText(error)}`);
    }
    if (problems.length > 0) throw new SessionError(SessionErrorCode.BackendFailure, problems.join('; '));
    this.deps.logger.info('ended session', { session_id: sessionId, pods: pods.length });
  }

  /** Lists pods in the namespace with `limit=1` under a 5 s bound — never a cluster-scoped call (C-HTTP-2). */
  async checkHealth(signal: AbortSignal): Promise<void> {
    try {
      await this.deps.api.listPods({ limit: 1 }, bounded(signal, this.healthTimeoutMs));
    } catch (error) {
      throw new SessionError(SessionErrorCode.BackendFailure, `kubernetes API: list pods in namespace "${this.deps.api.namespace}": ${errorText(error)}`, { cause: error });
    }
  }

  /** Stops in-flight acquisitions (their pods are left for siblings) and waits for sent activity patches. */
  async shutdown(): Promise<void> {
    this.stopping = true;
    this.acquiring.abort('shutdown');
    await this.toucher.drain();
  }

  /** A new acquisition of the session, registered so `end` and `shutdown` can abort it. */
  private start(sessionId: string, signal: AbortSignal): Acquisition {
    const acquisition = new Acquisition(this.deps, sessionId, deriveSessionToken(this.hmacKey, sessionId), signal);
    this.acquiring.add(acquisition);
    return acquisition;
  }

  private finish(acquisition: Acquisition): void {
    acquisition.dispose();
    this.acquiring.delete(acquisition);
  }

  /**
   * Records what this replica handed out and builds the handle. `recreated` (C-K8S-7) = evidence that the shell
   * state of the session was lost: the acquisition found only an earlier sandbox's traces (see `Acquired`), or
   * this replica handed out a different pod before, or the same pod's container restarted since.
   */
  private handOut(sessionId: string, acquired: Acquired): SandboxHandle {
    const lost = this.handedOut.record(sessionId, acquired.pod);
    return this.handle(sessionId, acquired.pod, acquired.path, acquired.hadEarlierSandbox || lost);
  }

  private handle(sessionId: string, pod: V1Pod, path: Acquired['path'], recreated: boolean): SandboxHandle {
    return {
      sessionId,
      agentUrl: agentUrlOf(pod.status?.podIP ?? '', this.deps.cfg.agentPort),
      token: deriveSessionToken(this.hmacKey, sessionId),
      sandboxName: podName(pod),
      path,
      recreated,
    };
  }
}
