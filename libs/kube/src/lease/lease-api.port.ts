import type { V1Lease } from '@kubernetes/client-node';

/**
 * `coordination.k8s.io/v1` Lease calls in ONE namespace: what leader election needs (get/create/update, client-go
 * semantics, C-CTL-1) and what the server's `/health` needs (get). Failures reject with `KubeError`.
 */
export interface LeaseApi {
  readonly namespace: string;
  /** The Lease, or `undefined` when it does not exist (404). */
  getLease(name: string, signal: AbortSignal): Promise<V1Lease | undefined>;
  /** 409 `AlreadyExists` when another candidate created it first. */
  createLease(lease: V1Lease, signal: AbortSignal): Promise<V1Lease>;
  /** PUT guarded by `metadata.resourceVersion`: 409 `Conflict` when someone else wrote it since it was read. */
  replaceLease(lease: V1Lease, signal: AbortSignal): Promise<V1Lease>;
}
