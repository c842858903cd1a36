import type { V1Pod } from '@kubernetes/client-node';
import { SESSION_ID_LABEL, SPEC_HASH_ANNOTATION, UNCLAIMABLE_ANNOTATION, hasOtherProxyAddress, isTerminal, isTerminating, oldestFirst, isCrashLooping, isServing } from '@cli-mcp/podspec';

/**
 * The warm-pool decision over the informer's pods (C-CTL-2, C-CTL-6; the Go operator's final rules, Go §4.4): pure,
 * so every rule is unit-tested without an API. Only UNASSIGNED pods (no session label) are the pool's; a pod that
 * carries a session label is never touched here.
 *
 * - broken = Failed/Succeeded, crash-looping or marked unclaimable: not a slot (it will never serve), replaced;
 * - terminating (not broken) = still a slot until it is gone (it holds quota and a node's resources);
 * - stale = spec hash differs from the desired one: a slot (claimable meanwhile), deleted so it is re-created;
 * - pending creates (sent, not yet seen by the informer) = slots, so one deficit never causes two creates;
 * - deficit = desired − slots → create; surplus = slots − desired → trim the oldest current pods (re-read first).
 */
export interface PoolInputs {
  /** The instance's sandbox pods (assigned and unassigned), as the informer has them. */
  readonly pods: readonly V1Pod[];
  readonly desired: number;
  /** `sandboxSpecHash` of the current configuration. */
  readonly specHash: string;
  /** The gateway address pods without DNS must have (the gate's last), when known: others are stale too. */
  readonly proxyAddress?: string | undefined;
  /** Creates answered but not yet observed. */
  readonly pendingCreates: number;
}

export type PoolDeletion = { readonly pod: V1Pod; readonly reason: 'broken' | 'stale' };

export interface PoolPlan {
  readonly create: number;
  /** Surplus, oldest first: each must be re-read and skipped if it gained a session label (C-CTL-2). */
  readonly trim: readonly V1Pod[];
  readonly replace: readonly PoolDeletion[];
  readonly counts: PoolCounts;
}

export interface PoolCounts {
  readonly desired: number;
  /** Unassigned, live, Ready with an IP: what a claim gets at once (any spec hash). */
  readonly ready: number;
  /** Slots: current + stale + terminating + pending creates. */
  readonly slots: number;
  readonly terminating: number;
  readonly broken: number;
  readonly stale: number;
}

export function planPool(inputs: PoolInputs): PoolPlan {
  const unassigned = inputs.pods.filter((pod) => pod.metadata?.labels?.[SESSION_ID_LABEL] === undefined);
  const broken = unassigned.filter(isBroken);
  const working = unassigned.filter((pod) => !isBroken(pod));
  const terminating = working.filter(isTerminating);
  const live = working.filter((pod) => !isTerminating(pod));
  const isCurrent = (pod: V1Pod): boolean => pod.metadata?.annotations?.[SPEC_HASH_ANNOTATION] === inputs.specHash && !hasOtherProxyAddress(pod, inputs.proxyAddress);
  const stale = live.filter((pod) => !isCurrent(pod));
  const current = live.filter(isCurrent);

  const slots = live.length + terminating.length + inputs.pendingCreates;
  const surplus = Math.max(0, slots - inputs.desired);
  return {
    create: Math.max(0, inputs.desired - slots),
    trim: [...current].sort(oldestFirst).slice(0, surplus),
    replace: [
      ...broken.filter((pod) => !isTerminating(pod)).map((pod) => ({ pod, reason: 'broken' as const })),
      ...stale.map((pod) => ({ pod, reason: 'stale' as const })),
    ],
    counts: {
      desired: inputs.desired,
      ready: live.filter(isServing).length,
      slots,
      terminating: terminating.length,
      broken: broken.length,
      stale: stale.length,
    },
  };
}

/**
 * Will never serve: finished, crash-looping, or marked unclaimable by a server (its agent holds a stray token) —
 * the claim path's predicates (`isCrashLooping`, the unclaimable mark, C-CTL-5), so the pool replaces what claims
 * skip for good (C-CTL-6), being deleted or not.
 */
export function isBroken(pod: V1Pod): boolean {
  return isTerminal(pod) || isCrashLooping(pod) || pod.metadata?.annotations?.[UNCLAIMABLE_ANNOTATION] !== undefined;
}
