import { randomBytes } from 'node:crypto';
import { systemClock } from '@cli-mcp/common';
import { sandboxSelector } from '@cli-mcp/podspec';
import { ClientNodeLeaseApi, ListWatchPodInformer, createEgressGate, loadKubeConfig } from '@cli-mcp/kube/client-node';
import type { Logger } from 'pino';
import { collectDefaultMetrics, Registry } from 'prom-client';
import type { ControllerConfig } from './config/controller-config.js';
import { pinoControllerLogger } from './controller-logger.js';
import { ControllerRuntime } from './controller-runtime.js';
import { ClientNodeControllerApi } from './kube/client-node-controller-api.js';
import { ControllerMetrics } from './metrics/controller-metrics.js';
import { serveProcess } from './serve-process.js';

/**
 * Wires the real adapters (client-node, the system clock) of the one-instance controller and serves it. An
 * unreachable API server never stops the process: `/health` says why (503).
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
    // `--egress-gateway`: no pool pod is created while the gate is shut (C-EGR-6).
    egressGate: createEgressGate(config.podConfig, { kubeConfig, registry }),
  });
  await serveProcess({
    config,
    runtime,
    registry,
    logger,
    fields: {
      namespace, instance: config.podConfig.instanceName, warm_pool_size: config.pool.size, idle_timeout_ms: config.gc.idleTimeoutMs,
      max_session_age_ms: config.gc.maxSessionAgeMs ?? null, version: config.version,
    },
  });
}
