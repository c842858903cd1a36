import { formatBytes } from './sandbox-bounds.js';
import type { DiskUsage } from './disk-usage.js';

export interface DiskMonitorOptions {
  limitBytes: number;
  intervalMs: number;
  usage: DiskUsage;
  /** Timers, a port for tests. */
  setInterval?: (callback: () => void, ms: number) => { unref?(): void };
  clearInterval?: (handle: unknown) => void;
}

/** Why a sandbox was stopped, as the next command's notice says it. */
export function overLimitReason(usedBytes: number, limitBytes: number): string {
  return `the sandbox was stopped because /workspace used ${formatBytes(usedBytes)}, ` +
    `${formatBytes(usedBytes - limitBytes)} over its ${formatBytes(limitBytes)} bound (--local-max-disk); delete files to get below it`;
}

/**
 * The workspace bound (issue 22): unprivileged hosts have no quotas, so each live sandbox's workspace is measured
 * every interval, and a sandbox whose workspace is over the bound *and still growing* is stopped. A workspace
 * that is over but not growing stays usable, so the session can delete files to get back under.
 */
export class DiskMonitor {
  private readonly watched = new Set<() => void>();

  constructor(private readonly options: DiskMonitorOptions) {}

  /** Watches one sandbox's workspace until the returned function is called; `stop` is called at most once. */
  watch(workspace: string, stop: (reason: string) => void): () => void {
    const every = this.options.setInterval ?? ((callback, ms) => setInterval(callback, ms));
    const state = { timer: undefined as unknown, last: Number.POSITIVE_INFINITY, busy: false, stopped: false };
    const check = async (): Promise<void> => {
      if (state.busy || state.stopped) return;
      state.busy = true;
      try {
        const used = await this.options.usage(workspace);
        // The first measurement only sets the baseline: a workspace adopted over its bound is not growing yet.
        if (used > this.options.limitBytes && used > state.last && !state.stopped) {
          state.stopped = true;
          unwatch();
          stop(overLimitReason(used, this.options.limitBytes));
        }
        state.last = used;
      } finally {
        state.busy = false;
      }
    };
    const timer = every(() => void check().catch(() => undefined), this.options.intervalMs);
    timer.unref?.();
    state.timer = timer;
    const unwatch = (): void => {
      if (!this.watched.delete(unwatch)) return;
      (this.options.clearInterval ?? ((handle) => clearInterval(handle as NodeJS.Timeout)))(state.timer);
    };
    this.watched.add(unwatch);
    void check().catch(() => undefined);
    return unwatch;
  }

  /** Stops watching every workspace (shutdown). */
  close(): void {
    for (const unwatch of [...this.watched]) unwatch();
  }
}
