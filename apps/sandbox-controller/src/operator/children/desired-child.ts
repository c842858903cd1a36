import type { KubeObject, ResourceRef } from '../kube/resources.js';

/**
 * One object the operator wants to exist (C-OP-3), and which of its fields are the operator's: on an update those
 * paths are replaced whole, labels and annotations are merged key by key, and every other field of the live
 * object (server defaults, what other writers added) is kept.
 */
export interface DesiredChild {
  readonly resource: ResourceRef;
  readonly object: KubeObject;
  /** Paths (e.g. `['spec', 'template']`) the operator owns whole. */
  readonly owned: ReadonlyArray<readonly string[]>;
  /**
   * Owned paths compared exactly, not as a subset: where an added key changes the meaning (a selector that now
   * selects fewer pods, an extra RBAC rule or subject, a NetworkPolicy peer) and the API server defaults nothing.
   */
  readonly exact?: ReadonlyArray<readonly string[]>;
}
