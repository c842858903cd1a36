import { performance } from 'node:perf_hooks';

/**
 * Time port: monotonic milliseconds and one-shot timers. Injected so TTLs, the idle reaper and grace periods are
 * unit-tested with a fake clock instead of sleeps.
 */
export interface Clock {
  /** Monotonic milliseconds (only differences are meaningful). */
  now(): number;
  /** Runs `callback` once after `delayMs`; returns a function that cancels it. Timers never keep the process alive. */
  schedule(delayMs: number, callback: () => void): () => void;
}

export const systemClock: Clock = {
  now: () => performance.now(),
  schedule(delayMs, callback) {
    const timer = setTimeout(callback, Math.max(0, delayMs));
    timer.unref();
    return () => clearTimeout(timer);
  },
};

/** Resolves after `delayMs` on `clock`, or rejects-free early when `signal` aborts (returns false then). */
export function delay(clock: Clock, delayMs: number, signal?: AbortSignal): Promise<boolean> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve(false);
    const onAbort = (): void => {
      cancel();
      resolve(false);
    };
    const cancel = clock.schedule(delayMs, () => {
      signal?.removeEventListener('abort', onAbort);
      resolve(true);
    });
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
