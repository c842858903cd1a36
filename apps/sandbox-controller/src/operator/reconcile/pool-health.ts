import type { V1Pod } from '@kubernetes/client-node';
import { SESSION_ID_LABEL, isTerminating } from '@cli-mcp/podspec';
import { isBroken } from '../../pool/pool-plan.js';

/** Container waiting reasons that mean the pod will not start by itself (the Go operator's backoff states). */
const STUCK = new Set(['ErrImagePull', 'ImagePullBackOff', 'InvalidImageName', 'CreateContainerConfigError', 'CreateContainerError', 'CrashLoopBackOff']);

/**
 * Pool pods that will never serve (C-OP-4 `WarmPoolUnhealthy`): failed, crash-looping, marked unclaimable (the
 * pool's own `isBroken`), or stuck before their start (image pull failing, bad container config). One line each,
 * at most five.
 */
export function unhealthyPoolPods(pods: readonly V1Pod[]): string[] {
  const lines: string[] = [];
  for (const pod of pods) {
    if (pod.metadata?.labels?.[SESSION_ID_LABEL] !== undefined || isTerminating(pod)) continue;
    const waiting = pod.status?.containerStatuses?.map((s) => s.state?.waiting?.reason).find((r) => r !== undefined && STUCK.has(r));
    if (waiting !== undefined) lines.push(`pod ${pod.metadata?.name}: ${waiting}`);
    else if (isBroken(pod)) lines.push(`pod ${pod.metadata?.name}: ${pod.status?.phase === 'Failed' ? 'Failed' : 'not serving (crash-looping or unclaimable)'}`);
  }
  return lines.length > 5 ? [...lines.slice(0, 5), `${lines.length - 5} more`] : lines;
}
