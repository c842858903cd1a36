import type { V1Pod, V1Secret } from '@kubernetes/client-node';

/**
 * The Kubernetes calls the backend makes — and nothing else (C-K8S-10): pods get/list/watch/create/patch/delete
 * and secrets create/delete, all in ONE namespace fixed when the port is built, so a cluster-scoped call cannot
 * be expressed. Failures reject with `KubeError`; an aborted `signal` rejects with the signal's reason.
 */
export interface KubeApi {
  /** The namespace every call is made in. */
  readonly namespace: string;
  /** `GET /api/v1/namespaces/<ns>/pods?labelSelector=…&limit=…`. */
  listPods(query: PodListQuery, signal: AbortSignal): Promise<PodList>;
  getPod(name: string, signal: AbortSignal): Promise<V1Pod>;
  createPod(pod: V1Pod, signal: AbortSignal): Promise<V1Pod>;
  /**
   * JSON merge patch (RFC 7386). A `metadata.resourceVersion` in the body is a precondition: 409 `Conflict` when
   * the pod changed since it was read (first writer wins, C-K8S-4). `null` deletes a key.
   */
  mergePatchPod(name: string, patch: PodMergePatch, signal: AbortSignal): Promise<V1Pod>;
  /**
   * Deletes without waiting for termination (C-K8S-8). `preconditions` (uid, resourceVersion) make it 409
   * `Conflict` when the pod is not the one that was read (claim tightening, C-CTL-5).
   */
  deletePod(name: string, signal: AbortSignal, preconditions?: DeletePreconditions): Promise<void>;
  /**
   * Watches the one pod `name` from `resourceVersion` until `until(pod)` holds for an ADDED/MODIFIED event, the
   * pod is DELETED, the stream closes or the server answers 410 Expired. Never polls (C-K8S-5). `until` sees every
   * ADDED/MODIFIED pod in order (the readiness wait starts its agent probe from it without ending the watch).
   */
  watchPodUntil(name: string, resourceVersion: string | undefined, until: (pod: V1Pod) => boolean, signal: AbortSignal): Promise<PodWatchEnd>;
  createSecret(secret: V1Secret, signal: AbortSignal): Promise<void>;
  deleteSecret(name: string, signal: AbortSignal): Promise<void>;
}

export interface DeletePreconditions {
  uid?: string;
  resourceVersion?: string;
}

export interface PodListQuery {
  labelSelector?: string;
  limit?: number;
}

export interface PodList {
  items: V1Pod[];
  /** The list's resourceVersion (a watch may start from it). */
  resourceVersion?: string;
}

/** The merge patches the backend sends: labels/annotations only, optionally resourceVersion-guarded. */
export interface PodMergePatch {
  metadata: {
    resourceVersion?: string;
    labels?: Record<string, string | null>;
    annotations?: Record<string, string | null>;
  };
}

/** Why a pod watch ended. */
export type PodWatchEnd =
  | { type: 'matched'; pod: V1Pod }
  | { type: 'deleted'; pod: V1Pod }
  /** The stream ended (server timeout, cut connection) without a match; `resourceVersion` = last seen. */
  | { type: 'closed'; resourceVersion?: string; error?: unknown }
  /** 410: the start point is older than the server's event window; re-read and watch again. */
  | { type: 'expired' };
