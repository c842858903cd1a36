import { CoreV1Api, DiscoveryV1Api, NetworkingV1Api, type KubeConfig } from '@kubernetes/client-node';
import { Registry } from 'prom-client';
import { sendKubeRequest } from '../client-node-request.js';
import { isNotFound } from '../kube-error.js';
import { KubeRequestMetrics } from '../kube-request-metrics.js';
import type { EgressGateApi, GateEndpointSlice, GateNetworkPolicy, GateService } from './egress-gate-api.port.js';

export interface ClientNodeEgressGateApiOptions {
  kubeConfig: KubeConfig;
  namespace: string;
  /** Registry of `cli_mcp_kube_requests_total`; a private one when absent. */
  registry?: Registry;
}

/** `EgressGateApi` on client-node's `DiscoveryV1Api`, `NetworkingV1Api` and `CoreV1Api`, counted and failing like every adapter. */
export class ClientNodeEgressGateApi implements EgressGateApi {
  private readonly discovery: DiscoveryV1Api;
  private readonly networking: NetworkingV1Api;
  private readonly core: CoreV1Api;
  private readonly metrics: KubeRequestMetrics;
  private readonly namespace: string;

  constructor(options: ClientNodeEgressGateApiOptions) {
    this.namespace = options.namespace;
    this.discovery = options.kubeConfig.makeApiClient(DiscoveryV1Api);
    this.networking = options.kubeConfig.makeApiClient(NetworkingV1Api);
    this.core = options.kubeConfig.makeApiClient(CoreV1Api);
    this.metrics = new KubeRequestMetrics(options.registry ?? new Registry());
  }

  async listEndpointSlices(labelSelector: string, signal: AbortSignal): Promise<GateEndpointSlice[]> {
    const list = await sendKubeRequest(this.metrics, { verb: 'list', resource: 'endpointslices', signal }, (options) =>
      this.discovery.listNamespacedEndpointSlice({ namespace: this.namespace, labelSelector }, options),
    );
    return list.items;
  }

  async listNetworkPolicies(signal: AbortSignal): Promise<GateNetworkPolicy[]> {
    const list = await sendKubeRequest(this.metrics, { verb: 'list', resource: 'networkpolicies', signal }, (options) =>
      this.networking.listNamespacedNetworkPolicy({ namespace: this.namespace }, options),
    );
    return list.items as GateNetworkPolicy[];
  }

  async readService(name: string, signal: AbortSignal): Promise<GateService | undefined> {
    try {
      return await sendKubeRequest(this.metrics, { verb: 'get', resource: 'services', signal }, (options) =>
        this.core.readNamespacedService({ namespace: this.namespace, name }, options),
      );
    } catch (error) {
      if (isNotFound(error)) return undefined;
      throw error;
    }
  }
}
