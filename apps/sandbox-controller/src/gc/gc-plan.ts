import type { V1Pod } from '@kubernetes/client-node';
import { CLAIMED_AT_ANNOTATION, SESSION_ID_LABEL, isTerminating, isWarmPodName, lastActivity, sessionStartedAt } from '@cli-mcp/podspec';

/**
 * Which sessions idle and age GC ends now, and when to look again (C-CTL-3, C-CTL-7; Go §5.3): pure, over the
 * informer's pods. A session is all live pods carrying its label (normally one):
 *
 * - idle: its newest last-activity (else created-at, Go fallback) is older than `--idle-timeout` (strictly, Go);
 * - max_age: its session start is older than `--max-session-age` (off when undefined) whatever its activity.
 *   The start is `claimed-at` for a claimed pool pod (else its last-activity: the claim stamped it, and that errs
 *   late, never early) and created-at for a pod created on demand;
 * - sessions whose pods are all terminating are being removed already; unassigned pods are the pool's.
 *
 * `nextCheckMs` is the delay until the soonest remaining expiry: the next pass is scheduled for it, not a tick.
 */
export interface GcInputs {
  readonly pods: readonly V1Pod[];
  readonly now: Date;
  readonly idleTimeoutMs: number;
  readonly maxSessionAgeMs: number | undefined;
}

export type GcReason = 'idle' | 'max_age';

export interface ExpiredSession {
  readonly sessionId: string;
  readonly reason: GcReason;
  readonly pods: readonly V1Pod[];
  /** Idle (or age) in seconds at `now`, for the log line. */
  readonly seconds: number;
}

export interface GcPlan {
  readonly expired: readonly ExpiredSession[];
  readonly nextCheckMs: number | undefined;
  /** Claimed pool pods without `claimed-at` (stamped so their start cannot drift with later activity). */
  readonly unstampedClaims: readonly { readonly pod: V1Pod; readonly startedAt: Date }[];
}

export function planGc(inputs: GcInputs): GcPlan {
  const now = inputs.now.getTime();
  const sessions = new Map<string, V1Pod[]>();
  for (const pod of inputs.pods) {
    const sessionId = pod.metadata?.labels?.[SESSION_ID_LABEL];
    if (sessionId === undefined || isTerminating(pod)) continue;
    sessions.set(sessionId, [...(sessions.get(sessionId) ?? []), pod]);
  }
  const expired: ExpiredSession[] = [];
  const unstampedClaims: { pod: V1Pod; startedAt: Date }[] = [];
  let next = Number.POSITIVE_INFINITY;
  for (const [sessionId, pods] of sessions) {
    const active = latest(pods.map(lastActivity));
    const started = earliest(pods.map(startOf));
    if (inputs.maxSessionAgeMs !== undefined) {
      for (const pod of pods) {
        const startedAt = startOf(pod);
        if (isUnstampedClaim(pod) && startedAt !== undefined) unstampedClaims.push({ pod, startedAt: new Date(startedAt) });
      }
    }
    const idleAt = active === undefined ? undefined : active + inputs.idleTimeoutMs;
    const ageAt = started === undefined || inputs.maxSessionAgeMs === undefined ? undefined : started + inputs.maxSessionAgeMs;
    if (ageAt !== undefined && now > ageAt) expired.push({ sessionId, reason: 'max_age', pods, seconds: Math.round((now - started!) / 1000) });
    else if (idleAt !== undefined && now > idleAt) expired.push({ sessionId, reason: 'idle', pods, seconds: Math.round((now - active!) / 1000) });
    else for (const at of [idleAt, ageAt]) if (at !== undefined) next = Math.min(next, at - now + 1);
  }
  return { expired, nextCheckMs: Number.isFinite(next) ? Math.max(0, next) : undefined, unstampedClaims };
}

/** When the pod's session started (see the header); undefined when the pod carries no time at all. */
function startOf(pod: V1Pod): number | undefined {
  if (isUnstampedClaim(pod)) return lastActivity(pod)?.getTime();
  return sessionStartedAt(pod)?.getTime();
}

function isUnstampedClaim(pod: V1Pod): boolean {
  return isWarmPodName(pod.metadata?.name ?? '') && pod.metadata?.annotations?.[CLAIMED_AT_ANNOTATION] === undefined;
}

function latest(times: (Date | undefined)[]): number | undefined {
  const known = times.filter((t): t is Date => t !== undefined).map((t) => t.getTime());
  return known.length === 0 ? undefined : Math.max(...known);
}

function earliest(times: (number | undefined)[]): number | undefined {
  const known = times.filter((t): t is number => t !== undefined);
  return known.length === 0 ? undefined : Math.min(...known);
}
