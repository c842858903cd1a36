import type { KubeConfig, V1Pod, V1Secret } from '@kubernetes/client-node';
import { ClientNodeKubeApi } from '@cli-mcp/kube/client-node';
import type { Registry } from 'prom-client';
import type { ControllerKubeApi, Preconditions } from './controller-kube-api.port.js';

export interface ClientNodeControllerApiOptions {
  kubeConfig: KubeConfig;
  namespace: string;
  /** The app's registry: `cli_mcp_kube_requests_total` is counted on it. */
  registry: Registry;
}

/**
 * `ControllerKubeApi` over the server's client-node adapter (`ClientNodeKubeApi`: one request path for retry,
 * errors, abort and counting): the controller's narrower port, where every delete carries preconditions.
 */
export class ClientNodeControllerApi implements ControllerKubeApi {
  readonly namespace: string;
  private readonly kube: ClientNodeKubeApi;

  constructor(options: ClientNodeControllerApiOptions) {
    this.namespace = options.namespace;
    this.kube = new ClientNodeKubeApi(options);
  }

  getPod(name: string, signal: AbortSignal): Promise<V1Pod> {
    return this.kube.getPod(name, signal);
  }

  createPod(pod: V1Pod, signal: AbortSignal): Promise<V1Pod> {
    return this.kube.createPod(pod, signal);
  }

  deletePod(name: string, preconditions: Preconditions, signal: AbortSignal): Promise<void> {
    return this.kube.deletePod(name, signal, preconditions);
  }

  annotatePod(name: string, annotations: Record<string, string | null>, signal: AbortSignal): Promise<V1Pod> {
    return this.kube.mergePatchPod(name, { metadata: { annotations } }, signal);
  }

  listSecrets(labelSelector: string, signal: AbortSignal): Promise<V1Secret[]> {
    return this.kube.listSecrets(labelSelector, signal);
  }

  deleteSecret(name: string, preconditions: Preconditions, signal: AbortSignal): Promise<void> {
    return this.kube.deleteSecret(name, signal, preconditions);
  }
}
