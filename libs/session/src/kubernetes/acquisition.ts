import type { V1Pod } from '@kubernetes/client-node';
import { authSecretName, isMissingSecret, sessionPodName, withEgressProxyAddress, type SandboxPodConfig } from '@cli-mcp/podspec';
import type { Clock } from '@cli-mcp/common';
import { closedGateText, type EgressGate, type KubeApi } from '@cli-mcp/kube';
import { SessionError, SessionErrorCode } from '../session-error.js';
import type { SessionMetrics } from '../session-metrics.js';
import { abortedAcquisition, type AbortCause, type Acquired } from './acquire-context.js';
import type { AgentProbe } from './agent-probe.js';
import { claimUnassignedPod, type ClaimOutcome } from './claim.js';
import { deletePodAndSecret } from './cleanup.js';
import { createSessionPod } from './create.js';
import { discoverSessionPod, type DiscoveryOutcome } from './discover.js';
import type { KubernetesAgentPort, KubernetesBackendLogger } from './kubernetes-backend.options.js';
import { waitForPodDeletion, waitForPodReady, type PodWaitOptions } from './pod-readiness.js';

/** What every acquisition of a backend shares: its ports, its settings and its timeouts. Built once per backend. */
export interface AcquisitionDeps {
  readonly api: KubeApi;
  readonly agent: KubernetesAgentPort;
  readonly cfg: SandboxPodConfig;
  readonly clock: Clock;
  readonly wallClock: () => Date;
  readonly logger: KubernetesBackendLogger;
  readonly metrics?: SessionMetrics;
  /** Direct `/health` check of a starting pod's agent, for every readiness wait (undefined: kubelet Ready only). */
  readonly probe?: AgentProbe;
  /** The fail-closed egress gate (C-EGR-6), with `--egress-gateway` only. */
  readonly egressGate?: Pick<EgressGate, 'check'>;
  /** Notes that a session's pod was stamped by a claim or create, so `touch` does not repeat it (C-K8S-6). */
  readonly toucher: { stamped(sessionId: string): void };
  readonly readyTimeoutMs: number;
  /** Bound of each API call on the acquisition's path (with its signal). */
  readonly requestTimeoutMs: number;
  /** Bound of each rollback and cleanup call (a fresh signal, never the caller's). */
  readonly cleanupTimeoutMs: number;
}

/**
 * One acquisition of one session (C-K8S-4): what that call owns — the session, its token, its own signal and why
 * it was aborted — and its steps as methods. The steps' bodies live in their modules (`discover.ts`, `claim.ts`,
 * `create.ts`, `cleanup.ts`), which read the call's state from here and the backend's ports from `deps`.
 * The signal is aborted by the caller (`caller`), or by the backend through `abort` (`released`, `shutdown`);
 * the first cause wins. `dispose` detaches it from the caller's signal when the call is over.
 */
export class Acquisition {
  /** Aborted with the acquisition (any {@link AbortCause}). */
  readonly signal: AbortSignal;
  private readonly controller = new AbortController();
  private readonly onCallerAbort = (): void => this.abort('caller');
  /** Set by `passEgressGate` from an open verdict (see `proxyAddress`). */
  private gateAddress: string | undefined;

  constructor(
    readonly deps: AcquisitionDeps,
    readonly sessionId: string,
    /** HMAC token of the session (C-AUTH-1): goes into the Secret and `/assign`, never into messages. */
    readonly token: string,
    private readonly callerSignal: AbortSignal,
  ) {
    this.signal = this.controller.signal;
    if (callerSignal.aborted) this.onCallerAbort();
    else callerSignal.addEventListener('abort', this.onCallerAbort, { once: true });
  }

  /** Stops the acquisition; the first cause is the one reported. */
  abort(cause: AbortCause): void {
    this.controller.abort(cause);
  }

  /** Why `signal` was aborted, undefined while it is not. */
  abortCause(): AbortCause | undefined {
    return this.signal.aborted ? (this.signal.reason as AbortCause) : undefined;
  }

  /** Throws the abort error when the acquisition was aborted, so every step stops the same way. */
  throwIfAborted(): void {
    if (this.signal.aborted) throw abortedAcquisition(this.abortCause());
  }

  /** `signal` bounded by the per-request timeout: for API calls on the acquisition's path. */
  request(): AbortSignal {
    return bounded(this.signal, this.deps.requestTimeoutMs);
  }

  /**
   * A FRESH bounded signal for rollback and cleanup, independent of the caller: a cancelled caller must not
   * leave a half-claimed pod behind (Go §18.16).
   */
  cleanup(): AbortSignal {
    return AbortSignal.timeout(this.deps.cleanupTimeoutMs);
  }

  /** Records that the session's pod had its last-activity stamped now (claim, create) so `touch` does not repeat it. */
  stamped(): void {
    this.deps.toucher.stamped(this.sessionId);
  }

  /** Step: the session's pods by label; the oldest serving one, else the oldest live one awaited. */
  discover(stage: string): Promise<DiscoveryOutcome> {
    return discoverSessionPod(this, stage);
  }

  /**
   * Step before a claim or create (C-EGR-6): with the egress gateway on, refuses — naming what is missing — unless
   * the gate is open. No pod is claimed or created by a refused acquisition.
   */
  async passEgressGate(): Promise<void> {
    const gate = this.deps.egressGate;
    if (gate === undefined) return;
    const verdict = await gate.check(this.signal).catch((error: unknown) => {
      this.throwIfAborted();
      throw error;
    });
    if (!verdict.open) throw new SessionError(SessionErrorCode.EgressNotEnforced, `resolve pod: ${closedGateText(verdict)}`);
    this.gateAddress = verdict.proxyAddress;
  }

  /**
   * The gateway's ClusterIP from the open gate (`--sandbox-dns none`, C-EGR-1): a created pod's `hostAliases`
   * entry, and the address a claimed pod must carry (a pool pod of a re-created Service is skipped).
   */
  get proxyAddress(): string | undefined {
    return this.gateAddress;
  }

  /** The pod config for a pod created now: the configuration plus the gateway's current address. */
  podConfig(): SandboxPodConfig {
    return withEgressProxyAddress(this.deps.cfg, this.gateAddress);
  }

  /** Step: one claim round over this instance's unassigned pods. */
  claim(): Promise<ClaimOutcome> {
    return claimUnassignedPod(this);
  }

  /** Step: Secret, then the session's deterministic pod, then readiness. */
  create(hadEarlierPod: boolean): Promise<Acquired> {
    return createSessionPod(this, hadEarlierPod);
  }

  /** Step: readiness of `pod` by watch (C-K8S-5), raced by the direct probe, bounded by the ready timeout and `signal`. */
  awaitReady(pod: V1Pod, options: Omit<PodWaitOptions, 'probe'> = {}): Promise<V1Pod> {
    return waitForPodReady(this.deps, pod, this.deps.readyTimeoutMs, this.signal, { ...options, probe: this.deps.probe });
  }

  /** Waits (by watch) until `pod` is gone, bounded like `awaitReady`. */
  awaitDeletion(pod: V1Pod): Promise<void> {
    return waitForPodDeletion(this.deps, pod, this.deps.readyTimeoutMs, this.signal);
  }

  /**
   * Readiness blocker of a session pod (it reads the token from the session Secret): the Secret is gone. A DELETE of
   * the session on another replica removes it (it found no pod yet to delete), so the pod can never start; the wait
   * fails at once with this text instead of after `--ready-timeout`, and the creator removes its pod — an ended
   * session is never brought back by recreating its Secret (docs/kubernetes-backend.md, "Races").
   */
  secretGone(): (pod: V1Pod) => string | undefined {
    const secret = authSecretName(this.deps.cfg.instanceName, this.sessionId);
    return (pod) => (isMissingSecret(pod, secret) ? `the session's auth Secret "${secret}" was deleted while the pod was starting (was the session ended?)` : undefined);
  }

  /**
   * Step after a failed acquisition: when DELETE of the session aborted it (C-K8S-8), a write in flight may land
   * after DELETE's own deletes, so the session's pod and Secret are removed again (fresh signal). Otherwise nothing.
   */
  async rollback(): Promise<void> {
    if (this.abortCause() === 'released') await deletePodAndSecret(this, sessionPodName(this.deps.cfg.instanceName, this.sessionId));
  }

  /** Detaches from the caller's signal: the call is over. */
  dispose(): void {
    this.callerSignal.removeEventListener('abort', this.onCallerAbort);
  }
}

/** This replica's acquisitions in flight, per session, so DELETE (`released`) and shutdown can stop them. */
export class InFlightAcquisitions {
  private readonly bySession = new Map<string, Set<Acquisition>>();

  add(acquisition: Acquisition): void {
    const set = this.bySession.get(acquisition.sessionId) ?? new Set<Acquisition>();
    set.add(acquisition);
    this.bySession.set(acquisition.sessionId, set);
  }

  delete(acquisition: Acquisition): void {
    const set = this.bySession.get(acquisition.sessionId);
    set?.delete(acquisition);
    if (set?.size === 0) this.bySession.delete(acquisition.sessionId);
  }

  /** Aborts the session's acquisitions (`sessionId`) or all of them. */
  abort(cause: AbortCause, sessionId?: string): void {
    const sets = sessionId === undefined ? [...this.bySession.values()] : [this.bySession.get(sessionId) ?? []];
    for (const set of sets) for (const acquisition of set) acquisition.abort(cause);
  }
}

/** `signal`, also aborted after `timeoutMs`: the bound of one API call. */
export function bounded(signal: AbortSignal, timeoutMs: number): AbortSignal {
  return AbortSignal.any([signal, AbortSignal.timeout(timeoutMs)]);
}
