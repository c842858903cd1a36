import type { AddressInfo } from 'node:net';
import type { Server as HttpsServer } from 'node:https';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { PinoLoggerService } from '@cli-mcp/common';
import type { Logger } from 'pino';
import type { AppOptions } from './core.module.js';
import { HttpAppModule } from './http.module.js';
import { HTTP_BODY_LIMIT_BYTES } from './http/body-limit.js';
import { McpErrorFilter } from './http/mcp-error.filter.js';
import { installRequestLogging } from './http/request-logging.js';
import { describeCertificate, readTlsPems, reloadTlsOnChange, type TlsPems } from './http/tls-reload.js';
import { ShutdownCoordinator } from './lifecycle/shutdown-coordinator.js';
import { onShutdownSignals } from './lifecycle/signals.js';

/**
 * The Fastify adapter with the server's settings (no Fastify logger: requests are logged by our hook); HTTPS when
 * `tls` is given (`--tls-cert-file`).
 */
export function createHttpAdapter(tls?: TlsPems): FastifyAdapter {
  // ignoreTrailingSlash: `DELETE /sessions/` must answer 400 "missing session ID" like `/sessions` (Go §2.5).
  return new FastifyAdapter({
    ...(tls === undefined ? {} : { https: { cert: tls.cert, key: tls.key } }),
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
  const tls = config.http.tls;
  const app = await NestFactory.create<NestFastifyApplication>(HttpAppModule.forRoot(options), createHttpAdapter(tls && readTlsPems(tls)), {
    logger: new PinoLoggerService(logger.child({ component: 'nest' })),
  });
  configureHttpApp(app, logger);
  // Fastify needs an explicit host: "" (":8080") means every IPv4 interface.
  await app.listen(config.http.port, config.http.host || '0.0.0.0');
  const address = app.getHttpServer().address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  // With `https` options Fastify made a node:https server (the adapter types it as http).
  const stopTlsReload = tls && reloadTlsOnChange(app.getHttpServer() as unknown as HttpsServer, tls, logger);
  logger.info(
    {
      transport: 'http', url: `${tls ? 'https' : 'http'}://${host}:${address.port}/mcp`, port: address.port, auth: config.http.authToken !== undefined,
      ...(tls && { tls: describeCertificate(readTlsPems(tls).cert) }), version: config.version,
    },
    'listening',
  );

  const coordinator = app.get(ShutdownCoordinator);
  onShutdownSignals(logger, {
    first: async (signal) => {
      logger.info({ signal, grace_ms: config.shutdownGraceMs }, 'received shutdown signal, draining');
      const { cancelled } = await coordinator.drain(config.shutdownGraceMs);
      stopTlsReload?.();
      await app.close();
      logger.info({ cancelled }, 'shutdown complete');
    },
    again: () => coordinator.cancelNow(),
  });
}
