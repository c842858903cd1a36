import { Controller, Get } from '@nestjs/common';
import { HealthCheck, HealthCheckService, type HealthCheckResult } from '@nestjs/terminus';
import { OpenRoute } from './boundary/open-route.decorator.js';
import { SessionsHealthIndicator } from './sessions-health.indicator.js';

/** `/live` (no dependencies) and `/health` (the session backend can make sandboxes), C-HTTP-2; open (C-HTTP-5). */
@OpenRoute()
@Controller()
export class HealthController {
  constructor(
    private readonly health: HealthCheckService,
    private readonly sessions: SessionsHealthIndicator,
  ) {}

  @Get('live')
  live(): { status: 'alive' } {
    return { status: 'alive' };
  }

  @Get('health')
  @HealthCheck()
  check(): Promise<HealthCheckResult> {
    return this.health.check([() => this.sessions.check('sessions')]);
  }
}
