import type { V1Pod } from '@kubernetes/client-node';
import { LAST_ACTIVITY_ANNOTATION, SESSION_ID_LABEL, buildAuthSecret, formatTimestamp, hasOtherProxyAddress, unassignedSelector, claimOrder, isServing, readyBy } from '@cli-mcp/podspec';
import { SessionErrorCode } from '../session-error.js';
import { resolveError, shouldCleanupAfterWaitFailure } from './acquire-context.js';
import type { Acquisition } from './acquisition.js';
import { deletePodAndSecret, deleteSessionSecret, rollbackLabel } from './cleanup.js';
import { agentUrlOf, podName } from './format.js';
import { errorText } from '@cli-mcp/common';
import { isAlreadyExists, isConflict, isNotFound } from '@cli-mcp/kube';
import { PodWaitError } from './pod-readiness.js';
import { keepOldestClaim } from './claim-tightening.js';
import { deliverToken, type TokenDelivery } from '../token-delivery.js';

/** Result of one claim round over the unassigned pods. */
export type ClaimOutcome =
  | { kind: 'claimed'; pod: V1Pod }
  /** There was nothing to claim (no warm pool, or the list failed): go on to create. */
  | { kind: 'none' }
  /** Candidates existed but every attempt failed, or a sibling holds the session's Secret: rediscover first. */
  | { kind: 'failed'; sibling: boolean };

type Attempt = { kind: 'claimed'; pod: V1Pod } | { kind: 'next' } | { kind: 'sibling' };

/**
 * Claims an unassigned pod of this instance for the session (C-K8S-4, Go §4.2 with its bugs fixed):
 * serving pods first, then oldest; each attempt is
 *  1. a merge patch `{metadata:{resourceVersion:<listed>, labels:{session-id}, annotations:{last-activity}}}` —
 *     the resourceVersion precondition makes the first writer win; 409 → next pod; the stamp keeps idle GC
 *     from reaping a just-claimed pod (Go §18.9);
 *  2. the session Secret — AlreadyExists means a sibling replica is claiming or created this session: roll the
 *     label back and stop, so the caller REDISCOVERS instead of making a second pod (Go §3.9/§4.4);
 *  3. readiness (watch) if the pod was not serving yet — failure is `claimed pod not ready`, no fallback;
 *  4. the token, by the one delivery path (`deliverToken`: `/assign`, a 409 or an ambiguous failure settled by
 *     asking the agent which token it holds) — our token → claimed; another token → the pod is unlabelled and
 *     marked unclaimable, NEVER deleted (a replica may serve it); any other failure rolls back; then next pod.
 * Candidates skip terminating, finished, crash-looping and marked pods (C-CTL-5), and pods without DNS built for
 * another gateway address than the gate's (C-EGR-1). A claim that succeeded is
 * tightened (`keepOldestClaim`). Rollback and cleanup use a fresh timeout, never the caller's signal (Go §18.16).
 */
export async function claimUnassignedPod(acq: Acquisition): Promise<ClaimOutcome> {
  let items: V1Pod[];
  try {
    ({ items } = await acq.deps.api.listPods({ labelSelector: unassignedSelector(acq.deps.cfg.instanceName) }, acq.request()));
  } catch (error) {
    acq.throwIfAborted();
    acq.deps.logger.warn('claim: list unassigned pods failed', { session_id: acq.sessionId, error: errorText(error) });
    return { kind: 'none' };
  }
  const candidates = claimOrder(items).filter((pod) => !hasOtherProxyAddress(pod, acq.proxyAddress));
  if (candidates.length === 0) return { kind: 'none' };
  for (const candidate of candidates) {
    const attempt = await tryClaim(acq, candidate);
    if (attempt.kind === 'claimed') return { kind: 'claimed', pod: await keepOldestClaim(acq, attempt.pod) };
    if (attempt.kind === 'sibling') return { kind: 'failed', sibling: true };
  }
  acq.deps.logger.debug?.('claim: all unassigned claim attempts failed', { session_id: acq.sessionId, candidates: candidates.length });
  return { kind: 'failed', sibling: false };
}

async function tryClaim(acq: Acquisition, candidate: V1Pod): Promise<Attempt> {
  const name = podName(candidate);
  const fields = { session_id: acq.sessionId, pod: name };
  let pod: V1Pod;
  try {
    pod = await acq.deps.api.mergePatchPod(
      name,
      {
        metadata: {
          resourceVersion: candidate.metadata?.resourceVersion,
          labels: { [SESSION_ID_LABEL]: acq.sessionId },
          annotations: { [LAST_ACTIVITY_ANNOTATION]: formatTimestamp(acq.deps.wallClock()) },
        },
      },
      acq.request(),
    );
  } catch (error) {
    if (acq.signal.aborted) {
      // The patch may have landed: undo it so the pod is not left labelled without a Secret.
      await rollbackLabel(acq, name);
      acq.throwIfAborted();
    }
    if (isConflict(error) || isNotFound(error)) acq.deps.logger.debug?.('claim: pod changed or went away, trying next pod', fields);
    else acq.deps.logger.warn('claim: failed to claim pod', { ...fields, error: errorText(error) });
    return { kind: 'next' };
  }
  acq.stamped();
  const started = acq.deps.clock.now();

  try {
    await acq.deps.api.createSecret(buildAuthSecret(acq.deps.cfg, acq.sessionId, acq.token), acq.request());
  } catch (error) {
    await rollbackLabel(acq, name);
    acq.throwIfAborted();
    if (isAlreadyExists(error)) {
      acq.deps.logger.debug?.('claim: session secret exists, a sibling holds the session; rediscovering', fields);
      return { kind: 'sibling' };
    }
    acq.deps.logger.warn('claim: create auth secret for claimed pod failed', { ...fields, error: errorText(error) });
    return { kind: 'next' };
  }

  if (!isServing(pod)) {
    try {
      pod = await acq.awaitReady(pod);
    } catch (error) {
      // The agent holds no token yet, but the pod is the session's now; a caller who gave up leaves it to a
      // sibling that discovers it (its first exec gets 503 and re-delivers the token, C-K8S-7).
      if (shouldCleanupAfterWaitFailure(error, acq.abortCause())) await deletePodAndSecret(acq, name);
      acq.throwIfAborted();
      const code = error instanceof PodWaitError ? SessionErrorCode.SandboxUnavailable : SessionErrorCode.BackendFailure;
      throw resolveError(code, `claimed pod not ready: ${errorText(error)}`, error);
    }
  }

  let delivery: TokenDelivery;
  try {
    delivery = await deliverToken(acq.deps.agent, agentUrlOf(pod.status?.podIP ?? '', acq.deps.cfg.agentPort), acq.token, acq.signal);
  } catch (error) {
    await rollbackLabel(acq, name);
    await deleteSessionSecret(acq);
    acq.throwIfAborted();
    acq.deps.logger.warn('claim: assign token to claimed pod failed', { ...fields, error: errorText(error) });
    return { kind: 'next' };
  }
  if (delivery === 'foreign') {
    // The agent holds a token that is not ours: an earlier claim's /assign landed although its claimer saw a
    // failure. The replica that delivered it may still serve the pod from its cache, so it is NOT deleted (issue 7):
    // unlabelled and marked, claimers skip it and the controller replaces it in the pool.
    acq.deps.logger.warn('claim: unassigned pod holds another token; marking it unclaimable', fields);
    await rollbackLabel(acq, name, 'token-conflict');
    await deleteSessionSecret(acq);
    acq.throwIfAborted();
    return { kind: 'next' };
  }
  acq.deps.metrics?.sandboxReady(Math.max(0, acq.deps.clock.now() - started) / 1000);
  acq.deps.logger.info('claimed unassigned sandbox pod', { ...fields, ready_by: readyBy(pod) });
  return { kind: 'claimed', pod };
}
