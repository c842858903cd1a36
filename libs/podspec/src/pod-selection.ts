import type { V1Pod } from '@kubernetes/client-node';
import { UNCLAIMABLE_ANNOTATION } from './labels.js';
import { isPodReady, isTerminal, isTerminating, oldestFirst } from './pod-status.js';

/**
 * Pure choices over listed pods (C-K8S-4, C-CTL-5/6). Every replica applies the same order to the same list, so
 * siblings converge on the same pod; the controller uses the same predicates for the pool.
 */

/**
 * Restarts after which a container that is not ready counts as crash-looping even between two back-offs, when
 * the kubelet shows it `Running` (or `ContainerCreating`) rather than `CrashLoopBackOff`.
 */
export const CRASH_LOOP_RESTARTS = 3;

/** Ready with an address the agent can be reached at. */
export function isServing(pod: V1Pod): boolean {
  return isPodReady(pod) && typeof pod.status?.podIP === 'string' && pod.status.podIP !== '';
}

/** Who said a handed-out pod can serve: the kubelet (Ready) or its agent, asked directly before that (for logs). */
export function readyBy(pod: V1Pod): 'kubelet' | 'agent' {
  return isServing(pod) ? 'kubelet' : 'agent';
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

/**
 * Crash-looping, from the container statuses: a container waiting in `CrashLoopBackOff`, or restarted at least
 * {@link CRASH_LOOP_RESTARTS} times and not ready. Such a pod is no sandbox to hand out (C-CTL-5/6).
 */
export function isCrashLooping(pod: V1Pod): boolean {
  return (pod.status?.containerStatuses ?? []).some(
    (status) => status.state?.waiting?.reason === 'CrashLoopBackOff' || ((status.restartCount ?? 0) >= CRASH_LOOP_RESTARTS && status.ready !== true),
  );
}

/** Why an unassigned pod must not be claimed, or undefined when it may be (C-CTL-5). */
export type UnclaimableReason = 'terminating' | 'finished' | 'crash-looping' | 'marked';

export function unclaimableReason(pod: V1Pod): UnclaimableReason | undefined {
  if (isTerminating(pod)) return 'terminating';
  if (isTerminal(pod)) return 'finished';
  if (isCrashLooping(pod)) return 'crash-looping';
  // Its agent holds a token nobody asked for (claim.ts, `token-conflict`): never claimable again.
  if (pod.metadata?.annotations?.[UNCLAIMABLE_ANNOTATION] !== undefined) return 'marked';
  return undefined;
}

/**
 * The pod cannot start because the session's auth Secret is gone: the kubelet reports the container waiting in
 * `CreateContainerConfigError` with `secret "<name>" not found`. It stays so until the Secret reappears, which a
 * session that was ended never does — so a wait fails at once instead of running into its deadline.
 */
export function isMissingSecret(pod: V1Pod, secretName: string): boolean {
  return (pod.status?.containerStatuses ?? []).some(
    (status) => status.state?.waiting?.reason === 'CreateContainerConfigError' && (status.state.waiting.message ?? '').includes(`secret "${secretName}" not found`),
  );
}

/** Claim candidates: claimable unassigned pods, serving ones first, then oldest first (C-K8S-4, C-CTL-5). */
export function claimOrder(pods: readonly V1Pod[]): V1Pod[] {
  return pods.filter((pod) => unclaimableReason(pod) === undefined).sort((a, b) => {
    const byReadiness = Number(isServing(b)) - Number(isServing(a));
    return byReadiness !== 0 ? byReadiness : oldestFirst(a, b);
  });
}
