import { CoreV1Api, type KubeConfig, type V1Pod } from '@kubernetes/client-node';
import type { Clock } from '@cli-mcp/common';
import type { Registry } from 'prom-client';
import { ListWatchInformer } from './list-watch-informer.js';
import type { InformerLogger } from './object-informer.port.js';
import type { PodChange, PodInformer } from './pod-informer.port.js';

export interface ListWatchPodInformerOptions {
  kubeConfig: KubeConfig;
  namespace: string;
  labelSelector: string;
  registry: Registry;
  clock: Clock;
  random: () => number;
  logger: InformerLogger;
}

/**
 * `PodInformer`: the generic `ListWatchInformer` on the namespace's pods with one label selector. */
export class ListWatchPodInformer extends ListWatchInformer<V1Pod> implements PodInformer {
  constructor(options: ListWatchPodInformerOptions) {
    const core = options.kubeConfig.makeApiClient(CoreV1Api);
    super({
      ...options,
      path: `/api/v1/namespaces/${encodeURIComponent(options.namespace)}/pods`,
      resource: 'pods',
      noun: 'pod',
      list: (labelSelector, o) => core.listNamespacedPod({ namespace: options.namespace, labelSelector }, o),
    });
  }

  pods(): V1Pod[] {
    return this.objects();
  }

  onChange(listener: (change: PodChange) => void): () => void {
    return this.onObjectChange((change) => listener(change.previous ? { type: change.type, pod: change.object, previous: change.previous } : { type: change.type, pod: change.object }));
  }
}
