import { probeControllerLease, type ControllerLeaseStatus } from '@cli-mcp/kube';
import type { Registry } from 'prom-client';
import type { ServerConfig } from '../config/server-config.js';

/** Reads whether a sandbox controller holds this instance's Lease (`--backend kubernetes` only). */
export type ControllerProbe = (signal: AbortSignal) => Promise<ControllerLeaseStatus>;

/** Injection token of the {@link ControllerProbe} (`undefined` for the local backend). */
export const CONTROLLER_PROBE = Symbol('ControllerProbe');

/** The probe for `config`: one `leases get` per call (the server's Role grants exactly that, C-K8S-10). */
export async function createControllerProbe(config: ServerConfig, registry: Registry): Promise<ControllerProbe | undefined> {
  const podConfig = config.kubernetes.podConfig;
  if (config.backend !== 'kubernetes' || !podConfig) return undefined;
  // Loaded only here: the local backend never pays for the Kubernetes client (kubernetes-client.ts).
  const { ClientNodeLeaseApi, loadKubeConfig } = await import('./kubernetes-client.js');
  const api = new ClientNodeLeaseApi({ kubeConfig: loadKubeConfig(config.kubernetes.kubeconfig), namespace: podConfig.namespace, registry });
  return (signal) => probeControllerLease(api, podConfig.instanceName, () => new Date(), signal);
}
