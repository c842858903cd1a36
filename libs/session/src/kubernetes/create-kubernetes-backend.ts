import type { KubeConfig } from '@kubernetes/client-node';
import type { Registry } from 'prom-client';
import { ClientNodeKubeApi, createEgressGate, loadKubeConfig } from '@cli-mcp/kube/client-node';
import { KubernetesBackend } from './kubernetes-backend.js';
import type { KubernetesBackendOptions } from './kubernetes-backend.options.js';

export interface CreateKubernetesBackendOptions extends Omit<KubernetesBackendOptions, 'api'> {
  /** `--kubeconfig`: the server's own client config; absent → default chain / in-cluster (C-K8S-9). */
  kubeconfigPath?: string;
  /** A ready KubeConfig instead of `kubeconfigPath` (tests, embedding). */
  kubeConfig?: KubeConfig;
  /** The app's registry: `cli_mcp_kube_requests_total` is registered on it (C-HTTP-3). */
  registry?: Registry;
}

/**
 * What `--backend kubernetes` wires: the client-node `KubeApi` bound to `podConfig.namespace`, the egress gate
 * when `podConfig.egressGateway` is on, and the backend.
 * Throws when no Kubernetes configuration can be loaded (a startup error).
 */
export function createKubernetesBackend(options: CreateKubernetesBackendOptions): KubernetesBackend {
  const { kubeconfigPath, kubeConfig, registry, ...backendOptions } = options;
  const config = kubeConfig ?? loadKubeConfig(kubeconfigPath);
  const { namespace } = options.podConfig;
  const api = new ClientNodeKubeApi({ kubeConfig: config, namespace, registry });
  // `--egress-gateway`: every claim and create first asks the fail-closed gate (C-EGR-6).
  const egressGate = backendOptions.egressGate ?? createEgressGate(options.podConfig, { kubeConfig: config, registry, clock: backendOptions.clock });
  return new KubernetesBackend({ ...backendOptions, api, egressGate });
}
