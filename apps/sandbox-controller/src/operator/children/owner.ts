import type { V1ObjectMeta, V1OwnerReference } from '@kubernetes/client-node';
import { CLIMCP_API_VERSION, CLIMCP_KIND, type CliMcpInstance } from '../api/climcpinstance.js';

/** The CR's identity as its children's owner. */
export interface InstanceOwner {
  readonly name: string;
  readonly uid: string;
}

export function ownerOf(cr: CliMcpInstance): InstanceOwner {
  return { name: cr.metadata.name ?? '', uid: cr.metadata.uid ?? '' };
}

/**
 * The owner reference every child carries (C-OP-3): `controller: true` (one managing controller), and
 * `blockOwnerDeletion` so a foreground delete of the CR waits for its children. Garbage collection removes the
 * children after the finalizer is gone.
 */
export function ownerReference(owner: InstanceOwner): V1OwnerReference {
  return { apiVersion: CLIMCP_API_VERSION, kind: CLIMCP_KIND, name: owner.name, uid: owner.uid, controller: true, blockOwnerDeletion: true };
}

/** True when `metadata` names `owner` (by uid) as its controller: the operator only ever changes such objects. */
export function isOwnedBy(metadata: V1ObjectMeta | undefined, owner: InstanceOwner): boolean {
  return (metadata?.ownerReferences ?? []).some((ref) => ref.uid === owner.uid && ref.kind === CLIMCP_KIND && ref.controller === true);
}

/** The name of the CliMcpInstance that controls `metadata`, if any (to route a child's event to its instance). */
export function controllingInstance(metadata: V1ObjectMeta | undefined): string | undefined {
  return (metadata?.ownerReferences ?? []).find((ref) => ref.kind === CLIMCP_KIND && ref.controller === true)?.name;
}
