import type { V1Pod } from '@kubernetes/client-node';
import { isPodReady, isTerminal, isTerminating, oldestFirst } from '@cli-mcp/podspec';

/**
 * Pure choices over listed pods (C-K8S-4). Every replica applies the same order to the same list, so siblings
 * converge on the same pod.
 */

/** Ready with an address the agent can be reached at. */
export function isServing(pod: V1Pod): boolean {
  return isPodReady(pod) && typeof pod.status?.podIP === 'string' && pod.status.podIP !== '';
}

/** Neither finished (Failed/Succeeded) nor being deleted — Go discovery took Terminating pods (Go §18.14). */
export function isLive(pod: V1Pod): boolean {
  return !isTerminal(pod) && !isTerminating(pod);
}

/** What discovery found among a session's pods. */
export interface SessionPods {
  /** The oldest serving pod: use it now. */
  ready?: V1Pod;
  /** Else the oldest live pod that is not serving yet: await it (a sibling is starting or claiming it). */
  pending?: V1Pod;
  /**
   * Some pod of the session finished (Failed/Succeeded, e.g. evicted): the session had a sandbox before
   * (recreate notice). Terminating pods do not count: after a DELETE the next sandbox is a new session's.
   */
  hadEarlierPod: boolean;
}

export function selectSessionPod(pods: readonly V1Pod[]): SessionPods {
  const live = pods.filter(isLive).sort(oldestFirst);
  const ready = live.find(isServing);
  const pending = ready ? undefined : live[0];
  return { ready, pending, hadEarlierPod: pods.some(isTerminal) };
}

/** Claim candidates: live unassigned pods, serving ones first, then oldest first (C-K8S-4). */
export function claimOrder(pods: readonly V1Pod[]): V1Pod[] {
  return pods.filter(isLive).sort((a, b) => {
    const byReadiness = Number(isServing(b)) - Number(isServing(a));
    return byReadiness !== 0 ? byReadiness : oldestFirst(a, b);
  });
}
