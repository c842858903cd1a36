import type { AddressInfo } from 'node:net';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { PinoLoggerService } from '@cli-mcp/common';
import type { Logger } from 'pino';
import type { AppOptions } from './core.module.js';
import { HttpAppModule } from './http.module.js';
import { HTTP_BODY_LIMIT_BYTES } from './http/body-limit.js';
import { McpErrorFilter } from './http/mcp-error.filter.js';
import { installRequestLogging } from './http/request-logging.js';
import { ShutdownCoordinator } from './lifecycle/shutdown-coordinator.js';
import { onShutdownSignals } from './lifecycle/signals.js';

/** The Fastify adapter with the server's settings (no Fastify logger: requests are logged by our hook). */
export function createHttpAdapter(): FastifyAdapter {
  // ignoreTrailingSlash: `DELETE /sessions/` must answer 400 "missing session ID" like `/sessions` (Go §2.5).
  return new FastifyAdapter({
    bodyLimit: HTTP_BODY_LIMIT_BYTES,
    return503OnClosing: true,
    forceCloseConnections: 'idle',
    routerOptions: { ignoreTrailingSlash: true },
  });
}

/**
 * The error filter and request logging around every route; shared by the binary and the tests. Access is the
 * global guard's (HttpAppModule), decided on the matched route.
 */
export function configureHttpApp(app: NestFastifyApplication, logger: Logger): void {
  app.useGlobalFilters(new McpErrorFilter(app.getHttpAdapter()));
  installRequestLogging(app.getHttpAdapter().getInstance(), logger);
}

/** Serves MCP over streamable HTTP until SIGTERM/SIGINT, then drains and exits 0 (C-MCP-8, C-HTTP-4). */
export async function runHttpServer(options: AppOptions): Promise<void> {
  const { config, logger } = options;
  const app = await NestFactory.create<NestFastifyApplication>(HttpAppModule.forRoot(options), createHttpAdapter(), {
    logger: new PinoLoggerService(logger.child({ component: 'nest' })),
  });
  configureHttpApp(app, logger);
  // Fastify needs an explicit host: "" (":8080") means every IPv4 interface.
  await app.listen(config.http.port, config.http.host || '0.0.0.0');
  const address = app.getHttpServer().address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  logger.info(
    { transport: 'http', url: `http://${host}:${address.port}/mcp`, port: address.port, auth: config.http.authToken !== undefined, version: config.version },
    'listening',
  );

  const coordinator = app.get(ShutdownCoordinator);
  onShutdownSignals(logger, {
    first: async (signal) => {
      logger.info({ signal, grace_ms: config.shutdownGraceMs }, 'received shutdown signal, draining');
      const { cancelled } = await coordinator.drain(config.shutdownGraceMs);
      await app.close();
      logger.info({ cancelled }, 'shutdown complete');
    },
    again: () => coordinator.cancelNow(),
  });
}
