import { LAST_ACTIVITY_ANNOTATION, formatTimestamp } from '@cli-mcp/podspec';
import { type Clock, errorText } from '@cli-mcp/common';
import { type KubeApi, isNotFound } from '@cli-mcp/kube';
import type { KubernetesBackendLogger } from './kubernetes-backend.options.js';

export interface ActivityToucherOptions {
  api: KubeApi;
  clock: Clock;
  wallClock: () => Date;
  logger: KubernetesBackendLogger;
  intervalMs: number;
  timeoutMs: number;
  maxSessions: number;
}

/**
 * last-activity stamping (C-K8S-6): a merge patch of the annotation at most once per `intervalMs` per session
 * on this replica, fired and forgotten — never awaited by a command, errors only logged. Go patched after every
 * call (≈ 1,000 patches per 1,000 calls, Go §3.8); idle GC only needs minute resolution (C-CTL-3).
 */
export class ActivityToucher {
  /** Session → monotonic time of the last stamp (ours, or the claim/create that set it). */
  private readonly last = new Map<string, number>();
  private readonly inFlight = new Set<Promise<void>>();

  constructor(private readonly options: ActivityToucherOptions) {}

  /** Notes that the session's pod was stamped just now (claim and create set the annotation themselves). */
  stamped(sessionId: string): void {
    this.remember(sessionId, this.options.clock.now());
  }

  /** Patches the pod's last-activity unless the session was stamped within the interval. Never throws. */
  touch(sessionId: string, podName: string): void {
    const now = this.options.clock.now();
    const previous = this.last.get(sessionId);
    if (previous !== undefined && now - previous < this.options.intervalMs) return;
    this.remember(sessionId, now);
    const patch = { metadata: { annotations: { [LAST_ACTIVITY_ANNOTATION]: formatTimestamp(this.options.wallClock()) } } };
    const sent = this.options.api
      .mergePatchPod(podName, patch, AbortSignal.timeout(this.options.timeoutMs))
      .then(
        () => undefined,
        (error: unknown) => {
          // Let the next command retry rather than waiting a whole interval.
          if (this.last.get(sessionId) === now) this.last.delete(sessionId);
          if (isNotFound(error)) this.options.logger.debug?.('last-activity: pod is gone', { session_id: sessionId, pod: podName });
          else this.options.logger.warn('failed to update last-activity annotation', { session_id: sessionId, pod: podName, error: errorText(error) });
        },
      )
      .finally(() => this.inFlight.delete(sent));
    this.inFlight.add(sent);
  }

  forget(sessionId: string): void {
    this.last.delete(sessionId);
  }

  /** Resolves when the patches already sent have finished (each is bounded by `timeoutMs`). */
  async drain(): Promise<void> {
    await Promise.allSettled([...this.inFlight]);
  }

  private remember(sessionId: string, at: number): void {
    this.last.delete(sessionId);
    this.last.set(sessionId, at);
    // Insertion order = recency: drop the least recently stamped sessions beyond the bound.
    while (this.last.size > this.options.maxSessions) {
      const oldest = this.last.keys().next().value as string;
      this.last.delete(oldest);
    }
  }
}
