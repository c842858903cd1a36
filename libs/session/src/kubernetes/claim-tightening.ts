import type { V1Pod } from '@kubernetes/client-node';
import { assignedSelector, isLive, selectSessionPod } from '@cli-mcp/podspec';
import type { Acquisition } from './acquisition.js';
import { podName } from './format.js';
import { errorText } from '@cli-mcp/common';
import { isConflict, isNotFound } from '@cli-mcp/kube';

/**
 * Claim tightening (C-CTL-5, the Go operator's rule): after a successful claim, re-list the session's pods and
 * keep ONE — the oldest serving pod, the same pod discovery on every replica picks — deleting the other live
 * ones. Two pods for one session can still arise where the Secret guard cannot see it (a rollback that failed, a
 * DELETE racing a create on another replica); without this each replica could keep using a different one.
 *
 * Each delete carries the pod's uid and resourceVersion as preconditions: a pod that changed since the list (a
 * sibling stamped its activity, relabelled or replaced it) is left alone (409). The auth Secret stays — every pod
 * of the session uses the same token. Best effort: a failed list or delete is logged and the claim stands.
 * Returns the pod to hand out: the keeper (normally the claimed pod itself).
 */
export async function keepOldestClaim(acq: Acquisition, claimed: V1Pod): Promise<V1Pod> {
  let items: V1Pod[];
  try {
    ({ items } = await acq.deps.api.listPods({ labelSelector: assignedSelector(acq.deps.cfg.instanceName, acq.sessionId) }, acq.request()));
  } catch (error) {
    acq.deps.logger.warn('claim: re-list of the session\'s pods failed; keeping the claimed pod', { session_id: acq.sessionId, error: errorText(error) });
    return claimed;
  }
  const live = items.filter(isLive);
  const keeper = selectSessionPod(live).ready ?? claimed;
  const extras = live.filter((pod) => podName(pod) !== podName(keeper));
  await Promise.all(extras.map((pod) => deleteExtra(acq, pod)));
  if (podName(keeper) !== podName(claimed)) {
    acq.deps.logger.info('claim: an older pod serves the session; using it', { session_id: acq.sessionId, pod: podName(keeper), claimed: podName(claimed) });
  }
  return keeper;
}

async function deleteExtra(acq: Acquisition, pod: V1Pod): Promise<void> {
  const name = podName(pod);
  const preconditions = { uid: pod.metadata?.uid, resourceVersion: pod.metadata?.resourceVersion };
  try {
    await acq.deps.api.deletePod(name, acq.cleanup(), preconditions);
    acq.deps.logger.info('claim: deleted an extra pod of the session', { session_id: acq.sessionId, pod: name });
  } catch (error) {
    if (isConflict(error) || isNotFound(error)) acq.deps.logger.debug?.('claim: extra pod changed or went away; left alone', { session_id: acq.sessionId, pod: name });
    else acq.deps.logger.warn('claim: failed to delete an extra pod of the session', { session_id: acq.sessionId, pod: name, error: errorText(error) });
  }
}
