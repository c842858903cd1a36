import { Inject, Injectable, Module, type DynamicModule, type OnApplicationShutdown } from '@nestjs/common';
import type { Logger } from 'pino';
import type { ServerConfig } from './config/server-config.js';
import { ShutdownCoordinator } from './lifecycle/shutdown-coordinator.js';
import { BashToolService } from './mcp/bash-tool.service.js';
import { EagerAcquisition } from './mcp/eager-acquisition.js';
import { McpServerFactory } from './mcp/mcp-server.factory.js';
import { McpSurface } from './mcp/mcp-surface.js';
import { ModernServerFactory } from './mcp/modern-server.factory.js';
import { RunningCalls } from './mcp/running-calls.js';
import { MetricsService } from './metrics/metrics.service.js';
import { CONTROLLER_PROBE, createControllerProbe } from './sessions/controller-probe.js';
import { createSessionService } from './sessions/create-session-service.js';
import type { SessionService } from './sessions/session-service.port.js';
import { validatedConfigModule } from './config/validated-config.js';
import { APP_LOGGER, SERVER_CONFIG, SERVER_CONFIG_NAMESPACE, SESSION_SERVICE } from './tokens.js';

export interface AppOptions {
  readonly config: ServerConfig;
  readonly logger: Logger;
}

/** Closing the app stops the session layer: local sandboxes are stopped, none is orphaned (C-HTTP-4). */
@Injectable()
class SessionShutdown implements OnApplicationShutdown {
  constructor(@Inject(SESSION_SERVICE) private readonly sessions: SessionService) {}

  async onApplicationShutdown(): Promise<void> {
    await this.sessions.shutdown();
  }
}

const SHARED = [MetricsService, RunningCalls, BashToolService, EagerAcquisition, McpSurface, McpServerFactory, ModernServerFactory, ShutdownCoordinator];

/** Providers both transports share: configuration, logger, metrics, the session port and the MCP layer. */
@Module({})
export class CoreModule {
  static forRoot(options: AppOptions): DynamicModule {
    return {
      module: CoreModule,
      global: true,
      // The validated configuration (C-CFG-1) through @nestjs/config: `SERVER_CONFIG` is its `server` namespace.
      // It never reads process.env or a .env file: main.ts validated argv + env before anything started.
      imports: [validatedConfigModule(SERVER_CONFIG_NAMESPACE, options.config)],
      providers: [
        { provide: APP_LOGGER, useValue: options.logger },
        ...SHARED,
        {
          provide: SESSION_SERVICE,
          useFactory: (config: ServerConfig, metrics: MetricsService, logger: Logger) => createSessionService(config, metrics.registry, logger),
          inject: [SERVER_CONFIG, MetricsService, APP_LOGGER],
        },
        {
          provide: CONTROLLER_PROBE,
          useFactory: (config: ServerConfig, metrics: MetricsService) => createControllerProbe(config, metrics.registry),
          inject: [SERVER_CONFIG, MetricsService],
        },
        SessionShutdown,
      ],
      exports: [APP_LOGGER, SESSION_SERVICE, CONTROLLER_PROBE, ...SHARED],
    };
  }
}
