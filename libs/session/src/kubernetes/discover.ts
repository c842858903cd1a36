import { SESSION_ID_LABEL, assignedSelector, selectSessionPod } from '@cli-mcp/podspec';
import { SessionErrorCode } from '../session-error.js';
import { resolveError, type Acquired } from './acquire-context.js';
import type { Acquisition } from './acquisition.js';
import { errorText } from '@cli-mcp/common';
import { PodWaitError } from './pod-readiness.js';

/** What a discovery saw besides its pick (the recreate notice reads it). */
export interface DiscoveryOutcome {
  found?: Acquired;
  /** Finished or terminating pods of the session were listed. */
  hadEarlierPod: boolean;
}

/**
 * Discovery by label (C-K8S-4): list the session's pods of THIS instance, skip finished and terminating ones
 * (Go §18.14), take the oldest serving pod; else await the oldest live one — a sibling replica is creating or
 * claiming it. A wait failure is reported, never cleaned up here: the pod belongs to whoever made it (Go §3.4).
 * `stage` is the Go message prefix (`discover pod`, `discover pod after conflict`, …).
 */
export async function discoverSessionPod(acq: Acquisition, stage: string): Promise<DiscoveryOutcome> {
  let items;
  try {
    ({ items } = await acq.deps.api.listPods({ labelSelector: assignedSelector(acq.deps.cfg.instanceName, acq.sessionId) }, acq.request()));
  } catch (error) {
    acq.throwIfAborted();
    throw resolveError(SessionErrorCode.BackendFailure, `${stage}: list pods: ${errorText(error)}`, error);
  }
  const { ready, pending, hadEarlierPod } = selectSessionPod(items);
  if (ready) return { found: { pod: ready, path: 'discover', hadEarlierSandbox: false }, hadEarlierPod };
  if (!pending) return { hadEarlierPod };
  try {
    const stillOwned = (pod: { metadata?: { labels?: Record<string, string> } }): boolean => pod.metadata?.labels?.[SESSION_ID_LABEL] === acq.sessionId;
    const pod = await acq.awaitReady(pending, { stillOwned, blockedBy: acq.secretGone() });
    return { found: { pod, path: 'discover', hadEarlierSandbox: false }, hadEarlierPod };
  } catch (error) {
    acq.throwIfAborted();
    // The awaited pod went away (its maker cleaned up, a sibling rolled its claim back, DELETE): nothing to use —
    // the acquisition goes on to claim or create instead of failing.
    if (error instanceof PodWaitError && (error.kind === 'deleted' || error.kind === 'disowned' || error.kind === 'terminating')) {
      acq.deps.logger.debug?.('awaited sandbox pod went away', { session_id: acq.sessionId, pod: pending.metadata?.name, reason: error.kind });
      return { hadEarlierPod };
    }
    const code = error instanceof PodWaitError ? SessionErrorCode.SandboxUnavailable : SessionErrorCode.BackendFailure;
    throw resolveError(code, `${stage}: ${errorText(error)}`, error);
  }
}
