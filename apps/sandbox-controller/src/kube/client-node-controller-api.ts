import { CoreV1Api, PatchStrategy, type KubeConfig, type V1Pod, type V1Secret } from '@kubernetes/client-node';
import { KubeRequestMetrics, sendKubeRequest } from '@cli-mcp/session';
import type { Registry } from 'prom-client';
import type { ControllerKubeApi, Preconditions } from './controller-kube-api.port.js';

export interface ClientNodeControllerApiOptions {
  kubeConfig: KubeConfig;
  namespace: string;
  /** The app's registry: `cli_mcp_kube_requests_total` is counted on it. */
  registry: Registry;
}

/** `ControllerKubeApi` on client-node's `CoreV1Api`, through the shared request helper (retry, errors, counting). */
export class ClientNodeControllerApi implements ControllerKubeApi {
  readonly namespace: string;
  private readonly core: CoreV1Api;
  private readonly metrics: KubeRequestMetrics;

  constructor(options: ClientNodeControllerApiOptions) {
    this.namespace = options.namespace;
    this.core = options.kubeConfig.makeApiClient(CoreV1Api);
    this.metrics = new KubeRequestMetrics(options.registry);
  }

  getPod(name: string, signal: AbortSignal): Promise<V1Pod> {
    return sendKubeRequest(this.metrics, { verb: 'get', resource: 'pods', signal }, (options) =>
      this.core.readNamespacedPod({ name, namespace: this.namespace }, options),
    );
  }

  createPod(pod: V1Pod, signal: AbortSignal): Promise<V1Pod> {
    return sendKubeRequest(this.metrics, { verb: 'create', resource: 'pods', signal }, (options) =>
      this.core.createNamespacedPod({ namespace: this.namespace, body: pod }, options),
    );
  }

  async deletePod(name: string, preconditions: Preconditions, signal: AbortSignal): Promise<void> {
    await sendKubeRequest(this.metrics, { verb: 'delete', resource: 'pods', signal }, (options) =>
      this.core.deleteNamespacedPod({ name, namespace: this.namespace, body: { preconditions: { ...preconditions } } }, options),
    );
  }

  annotatePod(name: string, annotations: Record<string, string | null>, signal: AbortSignal): Promise<V1Pod> {
    return sendKubeRequest(this.metrics, { verb: 'patch', resource: 'pods', signal, contentType: PatchStrategy.MergePatch }, (options) =>
      this.core.patchNamespacedPod({ name, namespace: this.namespace, body: { metadata: { annotations } } }, options),
    );
  }

  async listSecrets(labelSelector: string, signal: AbortSignal): Promise<V1Secret[]> {
    const list = await sendKubeRequest(this.metrics, { verb: 'list', resource: 'secrets', signal }, (options) =>
      this.core.listNamespacedSecret({ namespace: this.namespace, labelSelector }, options),
    );
    return list.items ?? [];
  }

  async deleteSecret(name: string, preconditions: Preconditions, signal: AbortSignal): Promise<void> {
    await sendKubeRequest(this.metrics, { verb: 'delete', resource: 'secrets', signal }, (options) =>
      this.core.deleteNamespacedSecret({ name, namespace: this.namespace, body: { preconditions: { ...preconditions } } }, options),
    );
  }
}
