import type { V1Pod, V1Secret } from '@kubernetes/client-node';
import type { ObjectInformer } from '@cli-mcp/kube';
import type { CliMcpInstance } from './api/climcpinstance.js';
import type { KubeObject, ResourceRef } from './kube/resources.js';

/**
 * The operator's informers (C-OP-6: watches only), one per kind, shared by every instance: the CRs, the pods of
 * any instance (sandboxes and servers), the namespace's Secrets (generated, admin and session ones), and one per
 * child kind on the managed-by label. Every reconcile decision reads these; nothing is fetched per pass.
 */
export interface OperatorCaches {
  readonly instances: ObjectInformer<CliMcpInstance & KubeObject>;
  readonly pods: ObjectInformer<V1Pod>;
  readonly secrets: ObjectInformer<V1Secret>;
  readonly children: ReadonlyMap<string, ObjectInformer<KubeObject>>;
  /** EndpointSlices that name a Service: a `spec.proxy` instance's pass runs when its gateway's endpoints change. */
  readonly endpointSlices: ObjectInformer<KubeObject>;
}

/** The cached child of `resource` named `name`. */
export function cachedChild(caches: OperatorCaches, resource: ResourceRef, name: string): KubeObject | undefined {
  return caches.children.get(resource.plural)?.get(name);
}

/** Every informer, for starting, stopping and health. */
export function allInformers(caches: OperatorCaches): Array<ObjectInformer<unknown>> {
  return [caches.instances, caches.pods, caches.secrets, caches.endpointSlices, ...caches.children.values()] as Array<ObjectInformer<unknown>>;
}
