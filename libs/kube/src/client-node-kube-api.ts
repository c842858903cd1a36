import { STATUS_CODES } from 'node:http';
import { CoreV1Api, PatchStrategy, Watch, type KubeConfig, type V1Pod, type V1Secret } from '@kubernetes/client-node';
import { Registry } from 'prom-client';
import { abortedError, messageOf, reasonOf, sendKubeRequest, type KubeRequestOptions } from './client-node-request.js';
import { KubeError } from './kube-error.js';
import type { DeletePreconditions, KubeApi, PodList, PodListQuery, PodMergePatch, PodWatchEnd } from './kube-api.port.js';
import { KubeRequestMetrics, type KubeResource, type KubeVerb } from './kube-request-metrics.js';

export interface ClientNodeKubeApiOptions {
  kubeConfig: KubeConfig;
  namespace: string;
  /** Registry of `cli_mcp_kube_requests_total`; a private one when absent. */
  registry?: Registry;
  /** Server-side bound of one watch stream; the backend re-watches after it (default 300 s). */
  watchTimeoutSeconds?: number;
}

/**
 * `KubeApi` on `@kubernetes/client-node` 1.4.0 (object-parameter `CoreV1Api`, stack-notes C): merge patches via
 * `setHeaderOptions('Content-Type', PatchStrategy.MergePatch)` (the generated default is JSON Patch), the
 * caller's `AbortSignal` handed to node-fetch through a request middleware, `ApiException` → `KubeError`, and
 * every request counted in `cli_mcp_kube_requests_total`.
 */
export class ClientNodeKubeApi implements KubeApi {
  readonly namespace: string;
  private readonly core: CoreV1Api;
  private readonly watcher: Watch;
  private readonly metrics: KubeRequestMetrics;
  private readonly watchTimeoutSeconds: number;

  constructor(options: ClientNodeKubeApiOptions) {
    this.namespace = options.namespace;
    this.core = options.kubeConfig.makeApiClient(CoreV1Api);
    this.watcher = new Watch(options.kubeConfig);
    this.metrics = new KubeRequestMetrics(options.registry ?? new Registry());
    this.watchTimeoutSeconds = options.watchTimeoutSeconds ?? 300;
  }

  async listPods(query: PodListQuery, signal: AbortSignal): Promise<PodList> {
    const list = await this.send('list', 'pods', signal, (options) =>
      this.core.listNamespacedPod({ namespace: this.namespace, labelSelector: query.labelSelector, limit: query.limit }, options),
    );
    return { items: list.items ?? [], resourceVersion: list.metadata?.resourceVersion };
  }

  getPod(name: string, signal: AbortSignal): Promise<V1Pod> {
    return this.send('get', 'pods', signal, (options) => this.core.readNamespacedPod({ name, namespace: this.namespace }, options));
  }

  createPod(pod: V1Pod, signal: AbortSignal): Promise<V1Pod> {
    return this.send('create', 'pods', signal, (options) => this.core.createNamespacedPod({ namespace: this.namespace, body: pod }, options));
  }

  mergePatchPod(name: string, patch: PodMergePatch, signal: AbortSignal): Promise<V1Pod> {
    return this.send(
      'patch',
      'pods',
      signal,
      (options) => this.core.patchNamespacedPod({ name, namespace: this.namespace, body: patch }, options),
      PatchStrategy.MergePatch,
    );
  }

  async deletePod(name: string, signal: AbortSignal, preconditions?: DeletePreconditions): Promise<void> {
    const body = preconditions === undefined ? undefined : { preconditions };
    await this.send('delete', 'pods', signal, (options) => this.core.deleteNamespacedPod({ name, namespace: this.namespace, body }, options));
  }

  async createSecret(secret: V1Secret, signal: AbortSignal): Promise<void> {
    await this.send('create', 'secrets', signal, (options) => this.core.createNamespacedSecret({ namespace: this.namespace, body: secret }, options));
  }

  async deleteSecret(name: string, signal: AbortSignal, preconditions?: DeletePreconditions): Promise<void> {
    const body = preconditions === undefined ? undefined : { preconditions };
    await this.send('delete', 'secrets', signal, (options) => this.core.deleteNamespacedSecret({ name, namespace: this.namespace, body }, options));
  }

  /** Not on `KubeApi` (the server never lists Secrets): the controller's orphan sweep (C-CTL-7). */
  async listSecrets(labelSelector: string, signal: AbortSignal): Promise<V1Secret[]> {
    const list = await this.send('list', 'secrets', signal, (options) => this.core.listNamespacedSecret({ namespace: this.namespace, labelSelector }, options));
    return list.items ?? [];
  }

  watchPodUntil(name: string, resourceVersion: string | undefined, until: (pod: V1Pod) => boolean, signal: AbortSignal): Promise<PodWatchEnd> {
    return new Promise<PodWatchEnd>((resolve, reject) => {
      if (signal.aborted) return reject(abortedError(signal));
      let settled = false;
      let stream: AbortController | undefined;
      let lastVersion = resourceVersion;
      const finish = (settle: () => void): void => {
        if (settled) return;
        settled = true;
        signal.removeEventListener('abort', onAbort);
        stream?.abort();
        settle();
      };
      const onAbort = (): void => finish(() => reject(abortedError(signal)));
      signal.addEventListener('abort', onAbort, { once: true });

      const onEvent = (type: string, object: unknown): void => {
        if (type === 'ERROR') {
          const status = object as { code?: number; reason?: string; message?: string } | undefined;
          if (status?.code === 410) return finish(() => resolve({ type: 'expired' }));
          return finish(() => reject(new KubeError(status?.message ?? 'watch error', status?.code, status?.reason)));
        }
        const pod = object as V1Pod;
        lastVersion = pod?.metadata?.resourceVersion ?? lastVersion;
        if (type === 'BOOKMARK') return;
        if (type === 'DELETED') return finish(() => resolve({ type: 'deleted', pod }));
        if ((type === 'ADDED' || type === 'MODIFIED') && until(pod)) finish(() => resolve({ type: 'matched', pod }));
      };
      const onDone = (error: unknown): void => {
        if (settled) return;
        const status = (error as { statusCode?: number } | null)?.statusCode;
        if (status === 410) return finish(() => resolve({ type: 'expired' }));
        if (status !== undefined) {
          return finish(() => reject(new KubeError(STATUS_CODES[status] ?? `watch failed with status ${status}`, status, reasonOf(status))));
        }
        finish(() => resolve(error ? { type: 'closed', resourceVersion: lastVersion, error } : { type: 'closed', resourceVersion: lastVersion }));
      };

      const query: Record<string, string | number | boolean | undefined> = {
        fieldSelector: `metadata.name=${name}`,
        resourceVersion,
        allowWatchBookmarks: true,
        timeoutSeconds: this.watchTimeoutSeconds,
      };
      let counted = false;
      const count = (code: string): void => {
        if (counted) return;
        counted = true;
        this.metrics.record('watch', 'pods', code);
      };
      this.watcher
        .watch(
          `/api/v1/namespaces/${encodeURIComponent(this.namespace)}/pods`,
          query,
          (type, object) => {
            count('200');
            onEvent(type, object);
          },
          (error) => {
            const status = (error as { statusCode?: number } | null)?.statusCode;
            count(status !== undefined ? String(status) : error ? 'error' : '200');
            onDone(error);
          },
        )
        .then(
          (controller) => {
            count('200');
            stream = controller;
            if (settled) controller.abort();
          },
          (error: unknown) => {
            count('error');
            finish(() => reject(new KubeError(messageOf(error), undefined, undefined, { cause: error })));
          },
        );
    });
  }

  private send<T>(
    verb: KubeVerb,
    resource: KubeResource,
    signal: AbortSignal,
    call: (options: KubeRequestOptions) => Promise<T>,
    contentType?: string,
  ): Promise<T> {
    return sendKubeRequest(this.metrics, { verb, resource, signal, contentType }, call);
  }
}
