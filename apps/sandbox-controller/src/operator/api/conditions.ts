/**
 * Status conditions of a CliMcpInstance (C-OP-4): `Ready` (the instance serves sessions) and `WarmPoolReady` (its
 * pool holds the desired unassigned Ready pods), with the Go operator's reasons plus `EgressNotEnforced`. A
 * condition keeps its `lastTransitionTime` until its status changes, as metav1.Condition requires.
 */
export const READY = 'Ready';
export const WARM_POOL_READY = 'WarmPoolReady';
export type ConditionType = typeof READY | typeof WARM_POOL_READY;

export const REASONS = {
  /** Both conditions when True. */
  ready: 'Ready',
  /** The spec cannot be rendered (a value the schema cannot check), or writing a child failed. */
  reconciling: 'Reconciling',
  /** spec.proxy is set and this operator version cannot enforce it yet: nothing runs (fail closed). */
  egressNotEnforced: 'EgressNotEnforced',
  /** An admin Secret (the investigation kubeconfig) does not exist. */
  secretsNotFound: 'SecretsNotFound',
  /** A required key of a Secret is missing or empty (admin kubeconfig, or a generated Secret someone emptied). */
  secretKeysInvalid: 'SecretKeysInvalid',
  /** The kubeconfig key is not a usable kubeconfig. */
  kubeconfigInvalid: 'KubeconfigInvalid',
  /** A child is missing, not yet seen, owned by someone else, or being changed by another writer. */
  childrenNotReady: 'ChildrenNotReady',
  /** The server Deployment is not Available with its replicas. */
  deploymentUnavailable: 'DeploymentUnavailable',
  /** Fewer unassigned Ready pool pods than desired (first fill, or a shortfall past its grace). */
  warmPoolNotReady: 'WarmPoolNotReady',
  /** A pool pod failed or crash-loops / cannot pull its image. */
  warmPoolUnhealthy: 'WarmPoolUnhealthy',
} as const;

export type Reason = (typeof REASONS)[keyof typeof REASONS];

export interface Condition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  observedGeneration?: number;
  lastTransitionTime: string;
  reason: string;
  message: string;
}

/** A condition as decided, before its times are set. */
export interface ConditionDecision {
  readonly type: ConditionType;
  readonly status: boolean;
  readonly reason: Reason;
  readonly message: string;
}

/** A change the Event log records (C-OP-4: one Event on every condition change). */
export interface ConditionChange {
  readonly type: ConditionType;
  readonly status: boolean;
  readonly reason: Reason;
  readonly message: string;
}

/**
 * The next condition list: each decision replaces its type, keeping `lastTransitionTime` when the status did
 * not change (metav1.Condition semantics). Returns the list and the decisions that changed status or reason.
 */
export function mergeConditions(
  previous: readonly Condition[] | undefined,
  decisions: readonly ConditionDecision[],
  generation: number | undefined,
  now: Date,
): { conditions: Condition[]; changes: ConditionChange[] } {
  const stamp = now.toISOString().replace(/\.\d{3}Z$/, 'Z');
  const changes: ConditionChange[] = [];
  const conditions = decisions.map((decision): Condition => {
    const old = previous?.find((c) => c.type === decision.type);
    const status = decision.status ? 'True' : 'False';
    if (!old || old.status !== status || old.reason !== decision.reason) changes.push(decision);
    return {
      type: decision.type,
      status,
      ...(generation === undefined ? {} : { observedGeneration: generation }),
      lastTransitionTime: old && old.status === status ? old.lastTransitionTime : stamp,
      reason: decision.reason,
      message: decision.message,
    };
  });
  // Conditions of other types (written by someone else) are kept as they are.
  for (const other of previous ?? []) if (!decisions.some((d) => d.type === other.type)) conditions.push(other);
  return { conditions, changes };
}
