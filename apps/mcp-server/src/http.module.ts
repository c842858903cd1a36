import { Module, type DynamicModule } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { TerminusModule } from '@nestjs/terminus';
import { CoreModule, type AppOptions } from './core.module.js';
import { BoundaryGuard } from './http/boundary/boundary.guard.js';
import { ControllerHealthIndicator } from './http/controller-health.indicator.js';
import { HealthController } from './http/health.controller.js';
import { McpController } from './http/mcp.controller.js';
import { MetricsController } from './http/metrics.controller.js';
import { SessionsController } from './http/sessions.controller.js';
import { SessionsHealthIndicator } from './http/sessions-health.indicator.js';

/**
 * The HTTP transport: `/mcp`, `/sessions`, `/live`, `/health`, `/metrics` (C-MCP-8, C-HTTP-1…3), every route behind
 * the global boundary guard (C-HTTP-5). `useExisting` keeps the guard a provider of its own, so tests can replace it.
 */
@Module({})
export class HttpAppModule {
  static forRoot(options: AppOptions): DynamicModule {
    return {
      module: HttpAppModule,
      imports: [CoreModule.forRoot(options), TerminusModule.forRoot({ errorLogStyle: 'json' })],
      controllers: [McpController, SessionsController, HealthController, MetricsController],
      providers: [SessionsHealthIndicator, ControllerHealthIndicator, BoundaryGuard, { provide: APP_GUARD, useExisting: BoundaryGuard }],
    };
  }
}
