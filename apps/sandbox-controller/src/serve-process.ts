import type { AddressInfo } from 'node:net';
import { createAdminServer } from '@cli-mcp/common';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import type { StatusSource } from './controller-runtime.js';
import { controllerRoutes } from './http/controller-routes.js';

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
 * Serves `/live`, `/health`, `/metrics` (the shared admin listener of libs/common: no framework, issue 22 item 6),
 * starts the runtime, and on SIGTERM/SIGINT steps down, releases the Lease (a follower takes over at once) and exits
 * 0; a second signal exits at once. Shared by the controller and the operator, so both shut down alike.
 */
export async function serveProcess(options: ServeOptions): Promise<void> {
  const { config, runtime, registry, logger } = options;
  const admin = createAdminServer(controllerRoutes(runtime, registry));
  await new Promise<void>((resolve, reject) => {
    admin.server.once('error', reject);
    admin.server.listen(config.http.port, config.http.host || '0.0.0.0', () => {
      admin.server.off('error', reject);
      resolve();
    });
  });
  admin.server.on('error', (error) => logger.error({ err: error }, 'admin listener error'));
  const address = admin.server.address() as AddressInfo;
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
    admin.beginShutdown();
    runtime
      .stop({ release: true })
      .then(() => new Promise<void>((resolve) => admin.server.close(() => resolve())))
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
