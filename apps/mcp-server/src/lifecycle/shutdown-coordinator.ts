import { Inject, Injectable } from '@nestjs/common';
import type { Logger } from 'pino';
import { RunningCalls } from '../mcp/running-calls.js';
import { APP_LOGGER } from '../tokens.js';

/** How long cancelled calls get to return their (cancelled) results before the server closes anyway. */
export const ABORT_SETTLE_MS = 5000;

export interface DrainResult {
  /** Calls still running at the end of the grace, then cancelled. */
  readonly cancelled: number;
}

/**
 * Graceful shutdown of running commands (C-HTTP-4): refuse new work, let running `bash` calls finish within the
 * grace, cancel the rest, and give them a moment to answer. The caller then closes the app (which shuts the
 * session layer down: no orphan sandbox processes).
 */
@Injectable()
export class ShutdownCoordinator {
  private drainingSince?: number;

  constructor(
    private readonly running: RunningCalls,
    @Inject(APP_LOGGER) private readonly logger: Logger,
  ) {}

  /** True once shutdown began: new MCP requests are refused with 503. */
  get draining(): boolean {
    return this.drainingSince !== undefined;
  }

  async drain(graceMs: number): Promise<DrainResult> {
    this.drainingSince ??= Date.now();
    if (this.running.size > 0) {
      this.logger.info({ running: this.running.size, grace_ms: graceMs }, 'waiting for running commands');
    }
    if (await settlesWithin(this.running.whenIdle(), graceMs)) return { cancelled: 0 };
    const cancelled = this.running.abortAll('server shutting down');
    this.logger.warn({ cancelled }, 'shutdown grace over: cancelled running commands');
    await settlesWithin(this.running.whenIdle(), ABORT_SETTLE_MS);
    return { cancelled };
  }

  /** Skips the rest of the grace (a second signal): cancels what still runs. */
  cancelNow(): void {
    this.running.abortAll('server shutting down');
  }
}

/** True when `promise` settles within `ms`; the timer never keeps the process alive. */
function settlesWithin(promise: Promise<unknown>, ms: number): Promise<boolean> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), ms);
    timer.unref();
    promise.then(
      () => {
        clearTimeout(timer);
        resolve(true);
      },
      () => {
        clearTimeout(timer);
        resolve(true);
      },
    );
  });
}
