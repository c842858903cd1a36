import { Controller, Get } from '@nestjs/common';
import { HealthCheck, HealthCheckService, type HealthCheckResult, type HealthIndicatorResult } from '@nestjs/terminus';
import { OpenRoute } from './boundary/open-route.decorator.js';
import { ControllerHealthIndicator } from './controller-health.indicator.js';
import { SessionsHealthIndicator } from './sessions-health.indicator.js';

/**
 * `/live` (no dependencies) and `/health` (the session backend can make sandboxes, C-HTTP-2; with the Kubernetes
 * backend also whether a sandbox controller runs — a detail that never fails the check); open (C-HTTP-5).
 */
@OpenRoute()
@Controller()
export class HealthController {
  constructor(
    private readonly health: HealthCheckService,
    private readonly sessions: SessionsHealthIndicator,
    private readonly controller: ControllerHealthIndicator,
  ) {}

  @Get('live')
  live(): { status: 'alive' } {
    return { status: 'alive' };
  }

  @Get('health')
  @HealthCheck()
  check(): Promise<HealthCheckResult> {
    const checks: Array<() => Promise<HealthIndicatorResult>> = [() => this.sessions.check('sessions')];
    if (this.controller.enabled) checks.push(() => this.controller.check('controller'));
    return this.health.check(checks);
  }
}
