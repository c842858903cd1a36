import { CoreV1Api, CustomObjectsApi, PatchStrategy, type KubeConfig } from '@kubernetes/client-node';
import { KubeRequestMetrics, type KubeVerb } from '@cli-mcp/kube';
import { sendKubeRequest, type KubeRequestOptions } from '@cli-mcp/kube/client-node';
import type { Registry } from 'prom-client';
import { FIELD_MANAGER, type DeletePreconditions, type ObjectApi } from './object-api.port.js';
import type { KubeObject, ResourceRef } from './resources.js';

export interface ClientNodeObjectApiOptions {
  kubeConfig: KubeConfig;
  namespace: string;
  registry: Registry;
}

type Call = (options: KubeRequestOptions) => Promise<unknown>;
type CoreCalls = {
  create: (body: KubeObject) => Call;
  replace: (name: string, body: KubeObject) => Call;
  patch: (name: string, body: object) => Call;
  delete: (name: string, body: object | undefined) => Call;
};

/**
 * `ObjectApi` on client-node 1.4 (through the shared request path: abort, retry of 429, `KubeError`, counting):
 * `CustomObjectsApi` for every group resource (apps, rbac, networking, the CRs — it speaks plain JSON for any
 * group/version/plural), `CoreV1Api` for the core kinds, which have no group path.
 */
export class ClientNodeObjectApi implements ObjectApi {
  readonly namespace: string;
  private readonly custom: CustomObjectsApi;
  private readonly core: Record<string, CoreCalls>;
  private readonly metrics: KubeRequestMetrics;

  constructor(options: ClientNodeObjectApiOptions) {
    this.namespace = options.namespace;
    this.custom = options.kubeConfig.makeApiClient(CustomObjectsApi);
    this.metrics = new KubeRequestMetrics(options.registry);
    const api = options.kubeConfig.makeApiClient(CoreV1Api);
    const namespace = this.namespace;
    const fieldManager = FIELD_MANAGER;
    /* eslint-disable @typescript-eslint/no-explicit-any -- the generated methods are typed per kind; bodies are plain JSON of that kind */
    const core = (kind: string): CoreCalls => {
      const method = (verb: string) => (api as any)[`${verb}Namespaced${kind}`].bind(api) as (request: Record<string, unknown>, options: KubeRequestOptions) => Promise<unknown>;
      return {
        create: (body) => (o) => method('create')({ namespace, body, fieldManager }, o),
        replace: (name, body) => (o) => method('replace')({ name, namespace, body, fieldManager }, o),
        patch: (name, body) => (o) => method('patch')({ name, namespace, body, fieldManager }, o),
        delete: (name, body) => (o) => method('delete')({ name, namespace, body }, o),
      };
    };
    /* eslint-enable @typescript-eslint/no-explicit-any */
    this.core = { pods: core('Pod'), secrets: core('Secret'), services: core('Service'), serviceaccounts: core('ServiceAccount'), configmaps: core('ConfigMap'), events: core('Event') };
  }

  async create(resource: ResourceRef, object: KubeObject, signal: AbortSignal): Promise<KubeObject> {
    return this.send('create', resource, signal, resource.group === ''
      ? this.coreOf(resource).create(object)
      : (o) => this.custom.createNamespacedCustomObject({ ...this.where(resource), body: object, fieldManager: FIELD_MANAGER }, o));
  }

  async replace(resource: ResourceRef, object: KubeObject, signal: AbortSignal): Promise<KubeObject> {
    const name = object.metadata?.name ?? '';
    return this.send('update', resource, signal, resource.group === ''
      ? this.coreOf(resource).replace(name, object)
      : (o) => this.custom.replaceNamespacedCustomObject({ ...this.where(resource), name, body: object, fieldManager: FIELD_MANAGER }, o));
  }

  async mergePatch(resource: ResourceRef, name: string, patch: Record<string, unknown>, signal: AbortSignal, subresource?: 'status'): Promise<KubeObject> {
    const request = { ...this.where(resource), name, body: patch, fieldManager: FIELD_MANAGER };
    let call: Call;
    if (resource.group === '') call = this.coreOf(resource).patch(name, patch);
    else if (subresource === 'status') call = (o) => this.custom.patchNamespacedCustomObjectStatus(request, o);
    else call = (o) => this.custom.patchNamespacedCustomObject(request, o);
    return this.send('patch', resource, signal, call, PatchStrategy.MergePatch);
  }

  async delete(resource: ResourceRef, name: string, signal: AbortSignal, preconditions?: DeletePreconditions): Promise<void> {
    const body = preconditions === undefined ? undefined : { preconditions };
    await this.send('delete', resource, signal, resource.group === ''
      ? this.coreOf(resource).delete(name, body)
      : (o) => this.custom.deleteNamespacedCustomObject({ ...this.where(resource), name, body }, o));
  }

  private where(resource: ResourceRef) {
    return { group: resource.group, version: resource.version, namespace: this.namespace, plural: resource.plural };
  }

  private coreOf(resource: ResourceRef): CoreCalls {
    const calls = this.core[resource.plural];
    if (!calls) throw new Error(`no core calls for ${resource.plural}`); // programming error: a core kind not in the table
    return calls;
  }

  private send(verb: KubeVerb, resource: ResourceRef, signal: AbortSignal, call: Call, contentType?: string): Promise<KubeObject> {
    return sendKubeRequest(this.metrics, { verb, resource: resource.plural, signal, contentType }, call) as Promise<KubeObject>;
  }
}
