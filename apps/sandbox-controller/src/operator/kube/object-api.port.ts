import type { KubeObject, ResourceRef } from './resources.js';

/** UID and/or resourceVersion a delete is conditional on (409 when the object changed or was replaced). */
export interface DeletePreconditions {
  readonly uid?: string;
  readonly resourceVersion?: string;
}

/**
 * Every write the operator makes, on any of its resources, in ONE namespace fixed when the port is built (C-OP-3):
 * create; replace (PUT, conditional on the `metadata.resourceVersion` the body carries: 409 when someone else
 * wrote first — optimistic concurrency, never a blind overwrite); JSON merge patch (labels, finalizers, the CR's
 * status subresource); delete. Reads come from informers, never from here. Failures reject with `KubeError`.
 */
export interface ObjectApi {
  readonly namespace: string;
  create(resource: ResourceRef, object: KubeObject, signal: AbortSignal): Promise<KubeObject>;
  replace(resource: ResourceRef, object: KubeObject, signal: AbortSignal): Promise<KubeObject>;
  mergePatch(resource: ResourceRef, name: string, patch: Record<string, unknown>, signal: AbortSignal, subresource?: 'status'): Promise<KubeObject>;
  delete(resource: ResourceRef, name: string, signal: AbortSignal, preconditions?: DeletePreconditions): Promise<void>;
}

/** The field manager the operator writes as (shown in managedFields; C-OP-3 "documented writer"). */
export const FIELD_MANAGER = 'cli-mcp-operator';
