import { CoordinationV1Api, type KubeConfig, type V1Lease } from '@kubernetes/client-node';
import { Registry } from 'prom-client';
import { sendKubeRequest } from '../client-node-request.js';
import { isNotFound } from '../kube-error.js';
import { KubeRequestMetrics } from '../kube-request-metrics.js';
import type { LeaseApi } from './lease-api.port.js';

export interface ClientNodeLeaseApiOptions {
  kubeConfig: KubeConfig;
  namespace: string;
  /** Registry of `cli_mcp_kube_requests_total`; a private one when absent. */
  registry?: Registry;
}

/**
 * `LeaseApi` on client-node's `CoordinationV1Api`. Lease bodies carry MicroTime strings with six fractional digits
 * (`formatMicroTime`): the serializer passes strings through, where a `Date` would get three (stack-notes C).
 */
export class ClientNodeLeaseApi implements LeaseApi {
  readonly namespace: string;
  private readonly coordination: CoordinationV1Api;
  private readonly metrics: KubeRequestMetrics;

  constructor(options: ClientNodeLeaseApiOptions) {
    this.namespace = options.namespace;
    this.coordination = options.kubeConfig.makeApiClient(CoordinationV1Api);
    this.metrics = new KubeRequestMetrics(options.registry ?? new Registry());
  }

  async getLease(name: string, signal: AbortSignal): Promise<V1Lease | undefined> {
    try {
      return await sendKubeRequest(this.metrics, { verb: 'get', resource: 'leases', signal }, (options) =>
        this.coordination.readNamespacedLease({ name, namespace: this.namespace }, options),
      );
    } catch (error) {
      if (isNotFound(error)) return undefined;
      throw error;
    }
  }

  createLease(lease: V1Lease, signal: AbortSignal): Promise<V1Lease> {
    return sendKubeRequest(this.metrics, { verb: 'create', resource: 'leases', signal }, (options) =>
      this.coordination.createNamespacedLease({ namespace: this.namespace, body: lease }, options),
    );
  }

  replaceLease(lease: V1Lease, signal: AbortSignal): Promise<V1Lease> {
    const name = lease.metadata?.name ?? '';
    return sendKubeRequest(this.metrics, { verb: 'update', resource: 'leases', signal }, (options) =>
      this.coordination.replaceNamespacedLease({ name, namespace: this.namespace, body: lease }, options),
    );
  }
}
