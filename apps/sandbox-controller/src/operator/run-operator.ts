import { randomBytes } from 'node:crypto';
import type { V1Pod, V1Secret } from '@kubernetes/client-node';
import { systemClock } from '@cli-mcp/common';
import { INSTANCE_LABEL } from '@cli-mcp/podspec';
import { SERVICE_NAME_LABEL } from '@cli-mcp/kube';
import { ClientNodeEgressGateApi, ClientNodeLeaseApi, loadKubeConfig } from '@cli-mcp/kube/client-node';
import type { Logger } from 'pino';
import { collectDefaultMetrics, Registry } from 'prom-client';
import type { OperatorConfig } from '../config/controller-config.js';
import { pinoControllerLogger } from '../controller-logger.js';
import { ClientNodeControllerApi } from '../kube/client-node-controller-api.js';
import type { ObjectInformer } from '@cli-mcp/kube';
import { ControllerMetrics } from '../metrics/controller-metrics.js';
import { serveProcess } from '../serve-process.js';
import type { CliMcpInstance } from './api/climcpinstance.js';
import { MANAGED_BY, MANAGED_BY_LABEL } from './children/child-names.js';
import { ClientNodeObjectApi } from './kube/client-node-object-api.js';
import { resourceInformer } from './kube/resource-informer.js';
import { CHILD_RESOURCES, CLIMCP_INSTANCES, ENDPOINT_SLICES, NETWORK_POLICIES, PODS, SECRETS, type KubeObject } from './kube/resources.js';
import type { OperatorCaches } from './operator-caches.js';
import { OperatorRuntime } from './operator-runtime.js';

/**
 * `sandbox-controller --operator`: the real adapters (client-node on the in-cluster or given kubeconfig, the
 * system clock), one informer per kind in the watched namespace, the operator runtime, and the same HTTP surface
 * and shutdown as the controller.
 */
export async function runOperator(config: OperatorConfig, logger: Logger): Promise<void> {
  const kubeConfig = loadKubeConfig(config.kubeconfig);
  const namespace = config.watchNamespace;
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const log = pinoControllerLogger(logger);
  const informerOptions = { kubeConfig, namespace, registry, clock: systemClock, random: Math.random, logger: log };
  const managed = `${MANAGED_BY_LABEL}=${MANAGED_BY}`;
  const caches: OperatorCaches = {
    instances: resourceInformer(CLIMCP_INSTANCES, undefined, informerOptions) as ObjectInformer<CliMcpInstance & KubeObject>,
    pods: resourceInformer(PODS, INSTANCE_LABEL, informerOptions) as unknown as ObjectInformer<V1Pod>,
    secrets: resourceInformer(SECRETS, undefined, informerOptions) as unknown as ObjectInformer<V1Secret>,
    endpointSlices: resourceInformer(ENDPOINT_SLICES, SERVICE_NAME_LABEL, informerOptions),
    // NetworkPolicies unfiltered: the egress gate's verdict (Ready of spec.proxy instances) weighs every policy
    // that may select the sandboxes, not only the operator's (C-EGR-6).
    children: new Map(CHILD_RESOURCES.map((resource) => [resource.plural, resourceInformer(resource, resource === NETWORK_POLICIES ? undefined : managed, informerOptions)])),
  };
  const runtime = new OperatorRuntime(
    {
      identity: config.identity,
      defaults: { namespace, serverImage: config.images.server, sandboxImage: config.images.sandbox, ...config.timeouts },
      leaseDurationMs: config.leaseDurationMs,
      orphanSecretGraceMs: config.orphanSecretGraceMs,
      poolShortfallGraceMs: config.poolShortfallGraceMs,
      egressImage: config.images.egress,
    },
    {
      caches,
      api: new ClientNodeObjectApi({ kubeConfig, namespace, registry }),
      controllerApi: new ClientNodeControllerApi({ kubeConfig, namespace, registry }),
      leases: new ClientNodeLeaseApi({ kubeConfig, namespace, registry }),
      egressGateApi: new ClientNodeEgressGateApi({ kubeConfig, namespace, registry }),
      clock: systemClock,
      wallClock: () => new Date(),
      random: Math.random,
      randomBytes: (size) => randomBytes(size),
      metrics: new ControllerMetrics(registry, { perInstance: true }),
      logger: log,
    },
  );
  await serveProcess({ config, runtime, registry, logger, fields: { mode: 'operator', namespace, server_image: config.images.server, version: config.version } });
}
