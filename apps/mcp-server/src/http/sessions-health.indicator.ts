import { Inject, Injectable } from '@nestjs/common';
import { HealthIndicatorService, type HealthIndicatorResult } from '@nestjs/terminus';
import type { SessionService } from '../sessions/session-service.port.js';
import { SESSION_SERVICE } from '../tokens.js';

/** Go's 5 s readiness budget (Go §12). */
export const HEALTH_TIMEOUT_MS = 5000;

/** Terminus indicator over `SessionService.checkHealth`, bounded by 5 s even if the backend ignores its signal. */
@Injectable()
export class SessionsHealthIndicator {
  constructor(
    private readonly indicators: HealthIndicatorService,
    @Inject(SESSION_SERVICE) private readonly sessions: SessionService,
  ) {}

  async check<const Key extends string>(key: Key): Promise<HealthIndicatorResult<Key>> {
    const indicator = this.indicators.check(key);
    const controller = new AbortController();
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        controller.abort();
        reject(new Error(`health check timed out after ${HEALTH_TIMEOUT_MS / 1000} s`));
      }, HEALTH_TIMEOUT_MS);
    });
    try {
      const health = await Promise.race([this.sessions.checkHealth(controller.signal), timeout]);
      // What the backend reports as it is (local: isolation, network and their warnings, C-SEC-4).
      return indicator.up(health?.details);
    } catch (error) {
      return indicator.down({ message: error instanceof Error ? error.message : String(error) });
    } finally {
      clearTimeout(timer);
    }
  }
}
