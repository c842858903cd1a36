import type { KubeConfig } from '@kubernetes/client-node';
import type { Registry } from 'prom-client';
import type { Clock } from '@cli-mcp/common';
import { sandboxWithoutDns, type SandboxPodConfig } from '@cli-mcp/podspec';
import { ClientNodeEgressGateApi } from './client-node-egress-gate-api.js';
import { EgressGate } from './egress-gate.js';

export interface CreateEgressGateOptions {
  kubeConfig: KubeConfig;
  registry?: Registry;
  clock?: Clock;
}

/**
 * The fail-closed gate the server's and the controller's pods need (C-EGR-6): none without `--egress-gateway`;
 * with it, one on the pods' namespace that also reads the gateway Service's ClusterIP when the pods have no DNS
 * (`--sandbox-dns none`, C-EGR-1). The one way both processes (and their tests) wire it.
 */
export function createEgressGate(podConfig: SandboxPodConfig, options: CreateEgressGateOptions): EgressGate | undefined {
  if (podConfig.egressGateway !== true) return undefined;
  return new EgressGate({
    api: new ClientNodeEgressGateApi({ kubeConfig: options.kubeConfig, namespace: podConfig.namespace, registry: options.registry }),
    instance: podConfig.instanceName,
    clock: options.clock,
    readProxyAddress: sandboxWithoutDns(podConfig),
  });
}
