import { SESSION_ID_LABEL, assignedSelector, selectSessionPod } from '@cli-mcp/podspec';
import { SessionErrorCode } from '../session-error.js';
import { missingSecretBlocker, resolveError, throwIfAborted, type AcquireContext, type Acquired } from './acquire-context.js';
import { errorText } from '@cli-mcp/common';
import { PodWaitError, waitForPodReady } from './pod-readiness.js';

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
export async function discoverSessionPod(ctx: AcquireContext, stage: string): Promise<DiscoveryOutcome> {
  let items;
  try {
    ({ items } = await ctx.api.listPods({ labelSelector: assignedSelector(ctx.cfg.instanceName, ctx.sessionId) }, ctx.request()));
  } catch (error) {
    throwIfAborted(ctx);
    throw resolveError(SessionErrorCode.BackendFailure, `${stage}: list pods: ${errorText(error)}`, error);
  }
  const { ready, pending, hadEarlierPod } = selectSessionPod(items);
  if (ready) return { found: { pod: ready, path: 'discover', hadEarlierSandbox: false }, hadEarlierPod };
  if (!pending) return { hadEarlierPod };
  try {
    const stillOwned = (pod: { metadata?: { labels?: Record<string, string> } }): boolean => pod.metadata?.labels?.[SESSION_ID_LABEL] === ctx.sessionId;
    const pod = await waitForPodReady(ctx, pending, ctx.readyTimeoutMs, ctx.signal, { stillOwned, blockedBy: missingSecretBlocker(ctx), probe: ctx.probe });
    return { found: { pod, path: 'discover', hadEarlierSandbox: false }, hadEarlierPod };
  } catch (error) {
    throwIfAborted(ctx);
    // The awaited pod went away (its maker cleaned up, a sibling rolled its claim back, DELETE): nothing to use —
    // the acquisition goes on to claim or create instead of failing.
    if (error instanceof PodWaitError && (error.kind === 'deleted' || error.kind === 'disowned' || error.kind === 'terminating')) {
      ctx.logger.debug?.('awaited sandbox pod went away', { session_id: ctx.sessionId, pod: pending.metadata?.name, reason: error.kind });
      return { hadEarlierPod };
    }
    const code = error instanceof PodWaitError ? SessionErrorCode.SandboxUnavailable : SessionErrorCode.BackendFailure;
    throw resolveError(code, `${stage}: ${errorText(error)}`, error);
  }
}
