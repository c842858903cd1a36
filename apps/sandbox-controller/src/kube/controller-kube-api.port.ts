import type { V1Pod, V1Secret } from '@kubernetes/client-node';

/** UID + resourceVersion a delete is conditional on (C-CTL-6): 409 when the object changed or was replaced. */
export interface Preconditions {
  readonly uid: string;
  readonly resourceVersion: string;
}

/**
 * The pod and Secret writes the controller makes — and nothing else (its Role: pods get/create/delete/patch plus
 * the informer's list/watch, secrets list/delete), all in ONE namespace fixed when the port is built. Every delete
 * carries preconditions. Failures reject with `KubeError`; an aborted `signal` rejects at once.
 */
export interface ControllerKubeApi {
  readonly namespace: string;
  /** Re-read before a surplus trim (a claim may have labelled it since the informer saw it, C-CTL-2). */
  getPod(name: string, signal: AbortSignal): Promise<V1Pod>;
  createPod(pod: V1Pod, signal: AbortSignal): Promise<V1Pod>;
  deletePod(name: string, preconditions: Preconditions, signal: AbortSignal): Promise<void>;
  /** Merge patch of annotations only (`claimed-at`); `null` removes one. */
  annotatePod(name: string, annotations: Record<string, string | null>, signal: AbortSignal): Promise<V1Pod>;
  listSecrets(labelSelector: string, signal: AbortSignal): Promise<V1Secret[]>;
  deleteSecret(name: string, preconditions: Preconditions, signal: AbortSignal): Promise<void>;
}

/** The preconditions of an observed object, or undefined when it lacks uid/resourceVersion (never delete blind). */
export function preconditionsOf(object: { metadata?: { uid?: string; resourceVersion?: string } }): Preconditions | undefined {
  const uid = object.metadata?.uid;
  const resourceVersion = object.metadata?.resourceVersion;
  return uid && resourceVersion ? { uid, resourceVersion } : undefined;
}
