import type { AddressInfo } from 'node:net';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { PinoLoggerService } from '@cli-mcp/common';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import type { StatusSource } from './controller-runtime.js';
import { ControllerAppModule } from './controller.module.js';

/** A runtime the process serves: the controller's or the operator's. */
export interface ServedRuntime extends StatusSource {
  start(): void;
  stop(options?: { release?: boolean }): Promise<void>;
}

export interface ServeOptions {
  readonly config: { readonly http: { readonly host: string; readonly port: number } };
  readonly runtime: ServedRuntime;
  readonly registry: Registry;
  readonly logger: Logger;
  /** Added to the `listening` log line. */
  readonly fields: Record<string, unknown>;
}

/**
 * Serves `/live`, `/health`, `/metrics` (Nest on Fastify), starts the runtime, and on SIGTERM/SIGINT steps down,
 * releases the Lease (a follower takes over at once) and exits 0; a second signal exits at once. Shared by the
 * controller and the operator, so both shut down alike.
 */
export async function serveProcess(options: ServeOptions): Promise<void> {
  const { config, runtime, registry, logger } = options;
  const app = await NestFactory.create<NestFastifyApplication>(
    ControllerAppModule.forRoot({ config, runtime, registry }),
    new FastifyAdapter({ return503OnClosing: true, forceCloseConnections: 'idle' }),
    { logger: new PinoLoggerService(logger.child({ component: 'nest' })) },
  );
  await app.listen(config.http.port, config.http.host || '0.0.0.0');
  const address = app.getHttpServer().address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  runtime.start();
  logger.info({ url: `http://${host}:${address.port}`, port: address.port, ...options.fields }, 'listening');

  let stopping = false;
  const stop = (signal: NodeJS.Signals): void => {
    if (stopping) {
      logger.warn({ signal }, 'second signal: exiting now');
      process.exit(1);
    }
    stopping = true;
    logger.info({ signal }, 'received shutdown signal: releasing the lease');
    runtime
      .stop({ release: true })
      .then(() => app.close())
      .then(
        () => {
          logger.info('shutdown complete');
          process.exit(0);
        },
        (error: unknown) => {
          logger.error({ err: error }, 'shutdown failed');
          process.exit(1);
        },
      );
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}
