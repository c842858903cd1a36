import type { V1Pod } from '@kubernetes/client-node';
import { SessionError, SessionErrorCode } from '../session-error.js';

/**
 * The rules and outcomes every step of an acquisition shares (the per-call object is `Acquisition`, acquisition.ts):
 * why it was aborted, what it hands out, when a failed wait cleans up, and the error texts.
 */

/** Why an acquisition's signal was aborted: the caller gave up, DELETE ended the session, or the server stops. */
export type AbortCause = 'caller' | 'released' | 'shutdown';

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

