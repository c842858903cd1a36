import { Module, type DynamicModule } from '@nestjs/common';
import { validatedConfigModule } from '@cli-mcp/common';
import { TerminusModule } from '@nestjs/terminus';
import type { Registry } from 'prom-client';
import type { StatusSource } from './controller-runtime.js';
import { HealthController } from './http/health.controller.js';
import { MetricsController } from './http/metrics.controller.js';
import { CONTROLLER_CONFIG_NAMESPACE, CONTROLLER_RUNTIME, METRICS_REGISTRY } from './tokens.js';

export interface ControllerAppOptions {
  readonly config: object;
  readonly runtime: StatusSource;
  readonly registry: Registry;
}

/** The controller's HTTP surface (no MCP): `/live`, `/health`, `/metrics`; the configuration via @nestjs/config. */
@Module({})
export class ControllerAppModule {
  static forRoot(options: ControllerAppOptions): DynamicModule {
    return {
      module: ControllerAppModule,
      imports: [
        // Validated before Nest started (C-CFG-1); the module only holds it.
        validatedConfigModule(CONTROLLER_CONFIG_NAMESPACE, options.config),
        TerminusModule.forRoot({ errorLogStyle: 'json' }),
      ],
      controllers: [HealthController, MetricsController],
      providers: [
        { provide: CONTROLLER_RUNTIME, useValue: options.runtime },
        { provide: METRICS_REGISTRY, useValue: options.registry },
      ],
    };
  }
}
