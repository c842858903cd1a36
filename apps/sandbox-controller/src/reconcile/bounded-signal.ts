import type { Clock } from '@cli-mcp/common';

/**
 * A request signal that aborts with its parent (leadership ended, shutdown) or after `timeoutMs` on `clock`. Every
 * write of the leader is bounded so it cannot land after a successor may have started (ElectionTiming). Call
 * `done()` when the request settled, to drop the timer.
 */
export function boundedSignal(parent: AbortSignal, clock: Clock, timeoutMs: number): { signal: AbortSignal; done: () => void } {
  const own = new AbortController();
  const cancel = clock.schedule(timeoutMs, () => own.abort(new DOMException('request timed out', 'TimeoutError')));
  return { signal: AbortSignal.any([parent, own.signal]), done: cancel };
}

/** Runs `request` with a bounded signal and always drops the timer. */
export async function withBoundedSignal<T>(parent: AbortSignal, clock: Clock, timeoutMs: number, request: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const bounded = boundedSignal(parent, clock, timeoutMs);
  try {
    return await request(bounded.signal);
  } finally {
    bounded.done();
  }
}
