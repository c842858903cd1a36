import { CoreV1Api, CustomObjectsApi, type KubeConfig, type KubernetesListObject } from '@kubernetes/client-node';
import type { Clock } from '@cli-mcp/common';
import type { KubeRequestOptions } from '@cli-mcp/kube/client-node';
import type { Registry } from 'prom-client';
import type { ControllerLogger } from '../../controller-logger.js';
import { ListWatchInformer } from '@cli-mcp/kube/client-node';
import { collectionPath, type KubeObject, type ResourceRef } from './resources.js';

export interface ResourceInformerOptions {
  kubeConfig: KubeConfig;
  namespace: string;
  registry: Registry;
  clock: Clock;
  random: () => number;
  logger: ControllerLogger;
}

/**
 * A watch-driven cache of one resource in the watched namespace (`ListWatchInformer`), listed through
 * `CustomObjectsApi` for group resources and `CoreV1Api` for core ones (C-OP-6: one informer per kind, shared by
 * every instance; no periodic list).
 */
export function resourceInformer(resource: ResourceRef, labelSelector: string | undefined, options: ResourceInformerOptions): ListWatchInformer<KubeObject> {
  const { kubeConfig, namespace } = options;
  let list: (selector: string | undefined, o: KubeRequestOptions) => Promise<KubernetesListObject<KubeObject>>;
  if (resource.group === '') {
    const core = kubeConfig.makeApiClient(CoreV1Api);
    const kind = resource.kind;
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the generated list method of this core kind
    const method = (core as any)[`listNamespaced${kind}`].bind(core) as (request: Record<string, unknown>, o: KubeRequestOptions) => Promise<KubernetesListObject<KubeObject>>;
    list = (selector, o) => method({ namespace, labelSelector: selector }, o);
  } else {
    const custom = kubeConfig.makeApiClient(CustomObjectsApi);
    list = (selector, o) =>
      custom.listNamespacedCustomObject({ group: resource.group, version: resource.version, namespace, plural: resource.plural, labelSelector: selector }, o) as Promise<KubernetesListObject<KubeObject>>;
  }
  return new ListWatchInformer<KubeObject>({ ...options, path: collectionPath(resource, namespace), resource: resource.plural, noun: resource.kind, labelSelector, list });
}
