import { CoreV1Api, type KubeConfig } from '@kubernetes/client-node';
import { KubeRequestMetrics, type KubeResource, type KubeVerb } from '@cli-mcp/kube';
import { sendKubeRequest, type KubeRequestOptions } from '@cli-mcp/kube/client-node';
import { COMPONENT_LABEL, INSTANCE_LABEL } from '@cli-mcp/podspec';
import type { Registry } from 'prom-client';
import type { EgressKubeApi, StoredObject } from './egress-kube-api.port.js';

/**
 * `EgressKubeApi` on client-node through the shared request path (`sendKubeRequest`: retry on 429, `KubeError`,
 * `cli_mcp_kube_requests_total`). What it creates carries the instance's labels, so `kubectl get -l` finds it.
 */
export class ClientNodeEgressApi implements EgressKubeApi {
  private readonly core: CoreV1Api;
  private readonly metrics: KubeRequestMetrics;

  constructor(kubeConfig: KubeConfig, private readonly namespace: string, private readonly instance: string, registry: Registry) {
    this.core = kubeConfig.makeApiClient(CoreV1Api);
    this.metrics = new KubeRequestMetrics(registry);
  }

  async getSecret(name: string, signal: AbortSignal): Promise<StoredObject> {
    const secret = await this.send('get', 'secrets', signal, (o) => this.core.readNamespacedSecret({ name, namespace: this.namespace }, o));
    const data = Object.fromEntries(Object.entries(secret.data ?? {}).map(([key, value]) => [key, Buffer.from(value, 'base64').toString('utf8')]));
    return { name, data, type: secret.type, resourceVersion: secret.metadata?.resourceVersion };
  }

  async createTlsSecret(name: string, data: Readonly<Record<string, string>>, signal: AbortSignal): Promise<void> {
    const body = { metadata: { name, labels: this.labels() }, type: 'kubernetes.io/tls', data: Object.fromEntries(Object.entries(data).map(([k, v]) => [k, Buffer.from(v).toString('base64')])) };
    await this.send('create', 'secrets', signal, (o) => this.core.createNamespacedSecret({ namespace: this.namespace, body }, o));
  }

  async getConfigMap(name: string, signal: AbortSignal): Promise<StoredObject> {
    const map = await this.send('get', 'configmaps', signal, (o) => this.core.readNamespacedConfigMap({ name, namespace: this.namespace }, o));
    return { name, data: map.data ?? {}, resourceVersion: map.metadata?.resourceVersion };
  }

  async createConfigMap(name: string, data: Readonly<Record<string, string>>, signal: AbortSignal): Promise<void> {
    const body = { metadata: { name, labels: this.labels() }, data: { ...data } };
    await this.send('create', 'configmaps', signal, (o) => this.core.createNamespacedConfigMap({ namespace: this.namespace, body }, o));
  }

  async updateConfigMap(name: string, data: Readonly<Record<string, string>>, resourceVersion: string | undefined, signal: AbortSignal): Promise<void> {
    const body = { metadata: { name, labels: this.labels(), resourceVersion }, data: { ...data } };
    await this.send('update', 'configmaps', signal, (o) => this.core.replaceNamespacedConfigMap({ name, namespace: this.namespace, body }, o));
  }

  /**
   * The instance's label with component `egress-gateway`, never `sandbox`: the controller's orphan sweep deletes
   * Secrets that carry the sandbox selector and no pod, which would take the shared CA away.
   */
  private labels(): Record<string, string> {
    return { [INSTANCE_LABEL]: this.instance, [COMPONENT_LABEL]: 'egress-gateway' };
  }

  private send<T>(verb: KubeVerb, resource: KubeResource, signal: AbortSignal, call: (options: KubeRequestOptions) => Promise<T>): Promise<T> {
    return sendKubeRequest(this.metrics, { verb, resource, signal }, call);
  }
}
