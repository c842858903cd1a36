import { READY, REASONS, WARM_POOL_READY, type ConditionDecision, type Reason } from '../api/conditions.js';

/** Everything the two conditions are decided on, gathered by one reconcile pass. */
export interface StatusInputs {
  /** Why the spec cannot be rendered, or why writing a child failed (→ `Reconciling`). */
  readonly reconciling?: string;
  /** spec.proxy cannot be enforced (→ `EgressNotEnforced`). */
  readonly egressRefused?: string;
  readonly secretProblem?: { readonly reason: Reason; readonly message: string };
  /** Children not (yet) on the cluster as rendered, or not the operator's to change (→ `ChildrenNotReady`). */
  readonly childProblems: readonly string[];
  /** Why the server Deployment is not Available, or undefined when it is (→ `DeploymentUnavailable`). */
  readonly deploymentProblem?: string;
  readonly pool: PoolInputs;
}

export interface PoolInputs {
  readonly desired: number;
  readonly ready: number;
  /** Pool pods that will never serve (failed, crash-looping, image pull failing). */
  readonly unhealthy: readonly string[];
  /** The pool has held `desired` Ready pods since its size was last raised. */
  readonly filled: boolean;
  /** A shortfall outlasted `--pool-shortfall-grace`. */
  readonly shortfallPastGrace: boolean;
}

/**
 * `WarmPoolReady` and `Ready` (C-OP-4), pure. The pool condition is strict about health but does not flap: after
 * the pool first filled, a dip caused by claims (refilled at once) keeps it True unless a pool pod is unhealthy
 * or the shortfall outlasts the grace (the Go operator's rule, which keeps one Event per claim out of the log).
 * `Ready` is the first failing gate, in the Go operator's order, then the pool.
 */
export function decideConditions(inputs: StatusInputs): ConditionDecision[] {
  const pool = poolCondition(inputs.pool);
  return [readyCondition(inputs, pool), pool];
}

function poolCondition(pool: PoolInputs): ConditionDecision {
  const of = `${pool.ready} of ${pool.desired} pool pods Ready`;
  const decision = (status: boolean, reason: Reason, message: string): ConditionDecision => ({ type: WARM_POOL_READY, status, reason, message });
  if (pool.unhealthy.length > 0) return decision(false, REASONS.warmPoolUnhealthy, `${of}; unhealthy: ${pool.unhealthy.join('; ')}`);
  if (pool.desired === 0) return decision(true, REASONS.ready, 'no warm pool (spec.sandbox.warmPoolSize is 0): every session starts its own pod');
  if (pool.ready >= pool.desired) return decision(true, REASONS.ready, of);
  if (!pool.filled) return decision(false, REASONS.warmPoolNotReady, `${of} (filling)`);
  if (pool.shortfallPastGrace) return decision(false, REASONS.warmPoolNotReady, `${of} for longer than the shortfall grace`);
  return decision(true, REASONS.ready, `${of} (refilling after claims)`);
}

function readyCondition(inputs: StatusInputs, pool: ConditionDecision): ConditionDecision {
  const not = (reason: Reason, message: string): ConditionDecision => ({ type: READY, status: false, reason, message });
  if (inputs.reconciling !== undefined) return not(REASONS.reconciling, inputs.reconciling);
  if (inputs.egressRefused !== undefined) return not(REASONS.egressNotEnforced, inputs.egressRefused);
  if (inputs.secretProblem !== undefined) return not(inputs.secretProblem.reason, inputs.secretProblem.message);
  if (inputs.childProblems.length > 0) return not(REASONS.childrenNotReady, inputs.childProblems.join('; '));
  if (inputs.deploymentProblem !== undefined) return not(REASONS.deploymentUnavailable, inputs.deploymentProblem);
  if (!pool.status) return not(pool.reason, pool.message);
  return { type: READY, status: true, reason: REASONS.ready, message: 'the server is available and the warm pool is ready' };
}

/** The Go operator's `deploymentAvailable`: observed its generation, all replicas ready, `Available` True. */
export function deploymentProblem(deployment: DeploymentLike | undefined, replicas: number): string | undefined {
  if (!deployment) return 'the server Deployment does not exist yet';
  const status = deployment.status ?? {};
  if ((status.observedGeneration ?? 0) < (deployment.metadata?.generation ?? 0)) return 'the server Deployment\'s new generation is not rolled out yet';
  const ready = status.readyReplicas ?? 0;
  if (ready < replicas) return `${ready} of ${replicas} server replicas ready`;
  const available = status.conditions?.find((c) => c.type === 'Available');
  if (available?.status !== 'True') return `the server Deployment is not Available${available?.message ? `: ${available.message}` : ''}`;
  return undefined;
}

export interface DeploymentLike {
  metadata?: { generation?: number };
  status?: { observedGeneration?: number; readyReplicas?: number; conditions?: Array<{ type: string; status: string; message?: string }> };
}
