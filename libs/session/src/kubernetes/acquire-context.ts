import type { V1Pod } from '@kubernetes/client-node';
import { authSecretName, type SandboxPodConfig, isMissingSecret } from '@cli-mcp/podspec';
import type { Clock } from '@cli-mcp/common';
import type { SessionMetrics } from '../session-metrics.js';
import { SessionError, SessionErrorCode } from '../session-error.js';
import type { AgentProbe } from './agent-probe.js';
import type { KubeApi } from '@cli-mcp/kube';
import type { KubernetesAgentPort, KubernetesBackendLogger } from './kubernetes-backend.options.js';

/** Why an acquisition's signal was aborted: the caller gave up, DELETE ended the session, or the server stops. */
export type AbortCause = 'caller' | 'released' | 'shutdown';

/** Everything one acquisition of one session needs; built per `acquire` call by the backend. */
export interface AcquireContext {
  readonly api: KubeApi;
  readonly agent: KubernetesAgentPort;
  readonly cfg: SandboxPodConfig;
  readonly clock: Clock;
  readonly wallClock: () => Date;
  readonly logger: KubernetesBackendLogger;
  readonly metrics?: SessionMetrics;
  readonly sessionId: string;
  /** HMAC token of the session (C-AUTH-1): goes into the Secret and `/assign`, never into messages. */
  readonly token: string;
  readonly readyTimeoutMs: number;
  /** Direct `/health` check of a starting pod's agent, for every readiness wait (undefined: kubelet Ready only). */
  readonly probe?: AgentProbe;
  /** Aborted with the acquisition (any {@link AbortCause}). */
  readonly signal: AbortSignal;
  /** Why `signal` was aborted, undefined while it is not. */
  abortCause(): AbortCause | undefined;
  /** `signal` bounded by the per-request timeout: for API calls on the acquisition's path. */
  request(): AbortSignal;
  /**
   * A FRESH bounded signal for rollback and cleanup, independent of the caller: a cancelled caller must not
   * leave a half-claimed pod behind (Go §18.16).
   */
  cleanup(): AbortSignal;
  /** Records that the pod's last-activity was stamped now (claim, create) so `touch` does not repeat it. */
  stamped(podName: string): void;
}

/** A pod the acquisition can hand out, and how it was found. */
export interface Acquired {
  pod: V1Pod;
  path: 'discover' | 'claim' | 'create';
  /** Evidence that the session had a sandbox before this one (recreate notice, C-K8S-7); never set by discovery. */
  hadEarlierSandbox: boolean;
}

/**
 * Go `shouldCleanupAfterWaitFailure` (Go §3.6, TestShouldCleanupAfterWaitFailure): after a failed readiness
 * wait, delete the pod (and Secret) we made unless the wait ended because the CALLER gave up (a sibling replica
 * may be waiting on the same pod — Go §3.5) or the server is stopping. A DELETE of the session does clean up.
 */
export function shouldCleanupAfterWaitFailure(error: unknown, cause: AbortCause | undefined): boolean {
  if (error === undefined || error === null) return false;
  return cause === undefined || cause === 'released';
}

/**
 * Readiness blocker of a session pod (it reads the token from the session Secret): the Secret is gone. A DELETE of
 * the session on another replica removes it (it found no pod yet to delete), so the pod can never start; the wait
 * fails at once with this text instead of after `--ready-timeout`, and the creator removes its pod — an ended
 * session is never brought back by recreating its Secret (docs/kubernetes-backend.md, "Races").
 */
export function missingSecretBlocker(ctx: AcquireContext): (pod: V1Pod) => string | undefined {
  const secret = authSecretName(ctx.cfg.instanceName, ctx.sessionId);
  return (pod) => (isMissingSecret(pod, secret) ? `the session's auth Secret "${secret}" was deleted while the pod was starting (was the session ended?)` : undefined);
}

/** The SessionError for an acquisition whose signal was aborted. */
export function abortedAcquisition(cause: AbortCause | undefined): SessionError {
  switch (cause) {
    case 'released':
      return new SessionError(SessionErrorCode.SandboxUnavailable, 'resolve pod: the session was ended while its sandbox was being prepared');
    case 'shutdown':
      return new SessionError(SessionErrorCode.ShuttingDown, 'server is shutting down');
    default:
      return new SessionError(SessionErrorCode.Cancelled, 'request cancelled by the client');
  }
}

/** `resolve pod: <detail>` (Go §2.2 prefix chain; the tool adds `sandbox exec failed: `). Never the token. */
export function resolveError(code: SessionErrorCode, detail: string, cause?: unknown): SessionError {
  return new SessionError(code, `resolve pod: ${detail}`, { cause });
}

/** Throws the abort error when the acquisition was aborted, so every step stops the same way. */
export function throwIfAborted(ctx: AcquireContext): void {
  if (ctx.signal.aborted) throw abortedAcquisition(ctx.abortCause());
}
