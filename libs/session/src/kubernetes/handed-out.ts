import type { V1Pod } from '@kubernetes/client-node';
import { podName } from './format.js';

/**
 * Which pod (uid, container restarts) this replica last handed out per session, for the recreate notice
 * (C-K8S-7): a different pod, or the same pod with more container restarts, means the session's shell state was
 * lost. Bounded: the least recently handed-out sessions beyond `maxSessions` are forgotten.
 */
export class HandedOutPods {
  private readonly last = new Map<string, { uid: string; restarts: number }>();

  constructor(private readonly maxSessions: number) {}

  /** Records `pod` as the session's; true when it replaces a different pod, or the same one restarted since. */
  record(sessionId: string, pod: V1Pod): boolean {
    const seen = { uid: pod.metadata?.uid ?? podName(pod), restarts: restartsOf(pod) };
    const previous = this.last.get(sessionId);
    const lost = previous !== undefined && (previous.uid !== seen.uid || previous.restarts < seen.restarts);
    this.last.delete(sessionId);
    this.last.set(sessionId, seen);
    while (this.last.size > this.maxSessions) this.last.delete(this.last.keys().next().value as string);
    return lost;
  }

  /** The session ended: its next sandbox is a new one, not a recreate. */
  forget(sessionId: string): void {
    this.last.delete(sessionId);
  }
}

/** Container restarts of the pod (a restart loses the shell state, and a claimed pod's token). */
function restartsOf(pod: V1Pod): number {
  return (pod.status?.containerStatuses ?? []).reduce((sum, status) => sum + (status.restartCount ?? 0), 0);
}
