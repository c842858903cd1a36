import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { PinoLoggerService, systemClock } from '@cli-mcp/common';
import { sandboxSelector } from '@cli-mcp/podspec';
import { ClientNodeLeaseApi, loadKubeConfig } from '@cli-mcp/kube/client-node';
import type { Logger } from 'pino';
import { collectDefaultMetrics, Registry } from 'prom-client';
import type { ControllerConfig } from './config/controller-config.js';
import { pinoControllerLogger } from './controller-logger.js';
import { ControllerAppModule } from './controller.module.js';
import { ControllerRuntime } from './controller-runtime.js';
import { ClientNodeControllerApi } from './kube/client-node-controller-api.js';
import { ListWatchPodInformer } from './kube/list-watch-pod-informer.js';
import { ControllerMetrics } from './metrics/controller-metrics.js';

/**
 * Wires the real adapters (client-node, the system clock), serves `/live`, `/health`, `/metrics`, starts the
 * runtime, and on SIGTERM/SIGINT steps down, releases the Lease (a follower takes over at once) and exits 0. A
 * second signal exits at once. An unreachable API server never stops the process: `/health` says why (503).
 */
export async function runController(config: ControllerConfig, logger: Logger): Promise<void> {
  const kubeConfig = loadKubeConfig(config.kubeconfig);
  const namespace = config.podConfig.namespace;
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const log = pinoControllerLogger(logger);
  const runtime = new ControllerRuntime(config, {
    api: new ClientNodeControllerApi({ kubeConfig, namespace, registry }),
    leases: new ClientNodeLeaseApi({ kubeConfig, namespace, registry }),
    informer: new ListWatchPodInformer({
      kubeConfig, namespace, labelSelector: sandboxSelector(config.podConfig.instanceName), registry, clock: systemClock, random: Math.random, logger: log,
    }),
    clock: systemClock,
    wallClock: () => new Date(),
    random: Math.random,
    randomBytes: (size) => randomBytes(size),
    metrics: new ControllerMetrics(registry),
    logger: log,
  });

  const app = await NestFactory.create<NestFastifyApplication>(
    ControllerAppModule.forRoot({ config, runtime, registry }),
    new FastifyAdapter({ return503OnClosing: true, forceCloseConnections: 'idle' }),
    { logger: new PinoLoggerService(logger.child({ component: 'nest' })) },
  );
  await app.listen(config.http.port, config.http.host || '0.0.0.0');
  const address = app.getHttpServer().address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  runtime.start();
  logger.info(
    {
      url: `http://${host}:${address.port}`, port: address.port, namespace, instance: config.podConfig.instanceName, warm_pool_size: config.pool.size,
      idle_timeout_ms: config.gc.idleTimeoutMs, max_session_age_ms: config.gc.maxSessionAgeMs ?? null, version: config.version,
    },
    'listening',
  );

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
