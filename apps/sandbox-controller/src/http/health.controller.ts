import { Controller, Get, Inject } from '@nestjs/common';
import { HealthCheck, HealthCheckService, HealthIndicatorService, type HealthCheckResult, type HealthIndicatorResult } from '@nestjs/terminus';
import type { StatusSource } from '../controller-runtime.js';
import { CONTROLLER_RUNTIME } from '../tokens.js';

/**
 * `/live` (the process answers) and `/health` (C-CTL-8): 503 only when the API server cannot be used (the pod
 * informer or the Lease failing — with the reason); leader or follower, the holder, and pool desired/ready and a
 * shortfall beyond `--pool-shortfall-grace` are details (a short pool is reported, not fatal: restarting the
 * controller would not fill it).
 */
@Controller()
export class HealthController {
  constructor(
    private readonly health: HealthCheckService,
    private readonly indicators: HealthIndicatorService,
    @Inject(CONTROLLER_RUNTIME) private readonly runtime: StatusSource,
  ) {}

  @Get('live')
  live(): { status: 'alive' } {
    return { status: 'alive' };
  }

  @Get('health')
  @HealthCheck()
  check(): Promise<HealthCheckResult> {
    return this.health.check([() => this.kubernetes(), () => this.election(), () => this.pool()]);
  }

  private kubernetes(): HealthIndicatorResult<'kubernetes'> {
    const { apiProblem } = this.runtime.status();
    const indicator = this.indicators.check('kubernetes');
    return apiProblem === undefined ? indicator.up() : indicator.down({ message: apiProblem });
  }

  private election(): HealthIndicatorResult<'election'> {
    const { role, identity, holder } = this.runtime.status();
    return this.indicators.check('election').up({ role, identity, holder: holder === '' ? '(released)' : (holder ?? '(unknown)') });
  }

  private pool(): HealthIndicatorResult<'pool'> {
    const { pool, instances, refillPaused } = this.runtime.status();
    // A paused refill (closed egress gate, C-EGR-6) is a detail like a short pool: restarting would not fix it.
    return this.indicators.check('pool').up({ ...pool, ...(instances === undefined ? {} : { instances }), ...(refillPaused === undefined ? {} : { refill_paused: refillPaused }) });
  }
}
