import type { V1Pod } from '@kubernetes/client-node';
import { CLAIMED_AT_ANNOTATION, CREATED_AT_ANNOTATION, LAST_ACTIVITY_ANNOTATION } from './labels.js';
import { parseTimestamp } from './timestamp.js';

/**
 * Pure predicates over observed pods, shared by the backend (discovery, C-K8S-4/5) and the controller (pool
 * and idle GC, C-CTL-2/3). Pods come from the API (client-node gives `Date`s) or raw watch JSON (strings);
 * both are accepted, and nothing here throws on a malformed pod.
 */

/** Ready to serve: phase `Running` and condition `Ready` = `True` (Go `isPodReady`). */
export function isPodReady(pod: V1Pod): boolean {
  return pod.status?.phase === 'Running' && (pod.status.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True');
}

/** Finished for good: phase `Failed` or `Succeeded` (never Ready again; skipped by discovery, C-K8S-4). */
export function isTerminal(pod: V1Pod): boolean {
  const phase = pod.status?.phase;
  return phase === 'Failed' || phase === 'Succeeded';
}

/** Being deleted: `deletionTimestamp` is set (Go §18.14: discovery must skip these). */
export function isTerminating(pod: V1Pod): boolean {
  return pod.metadata?.deletionTimestamp !== undefined && pod.metadata.deletionTimestamp !== null;
}

/**
 * When the pod was created: the `created-at` annotation, else `metadata.creationTimestamp`. A value that
 * does not parse counts as absent.
 */
export function createdAt(pod: V1Pod): Date | undefined {
  return annotationTime(pod, CREATED_AT_ANNOTATION) ?? toDate(pod.metadata?.creationTimestamp);
}

/**
 * When the sandbox was last used: `last-activity`, else `created-at`, else `creationTimestamp` (Go idle GC
 * fallback, C-CTL-3). An unparseable annotation falls through to the next source rather than making the pod
 * immortal to idle GC; `undefined` only when none parses.
 */
export function lastActivity(pod: V1Pod): Date | undefined {
  return annotationTime(pod, LAST_ACTIVITY_ANNOTATION) ?? createdAt(pod);
}

/**
 * When the pod's session began: `claimed-at` (a pool pod claimed later than it was made), else {@link createdAt}
 * (a pod created on demand for the session). The absolute lifetime `--max-session-age` counts from it (C-CTL-7).
 */
export function sessionStartedAt(pod: V1Pod): Date | undefined {
  return annotationTime(pod, CLAIMED_AT_ANNOTATION) ?? createdAt(pod);
}

/** Milliseconds since {@link createdAt} at `now` (negative if the clock is behind), or `undefined`. */
export function podAge(pod: V1Pod, now: Date): number | undefined {
  const created = createdAt(pod);
  return created === undefined ? undefined : now.getTime() - created.getTime();
}

/** Milliseconds since {@link lastActivity} at `now`, or `undefined`. */
export function idleTime(pod: V1Pod, now: Date): number | undefined {
  const last = lastActivity(pod);
  return last === undefined ? undefined : now.getTime() - last.getTime();
}

/**
 * Comparator for "oldest first" (discovery picks the oldest Ready pod, C-K8S-4; the pool trims oldest
 * first, C-CTL-2): by {@link createdAt}, pods without a time last, ties broken by name so every replica
 * picks the same pod.
 */
export function oldestFirst(a: V1Pod, b: V1Pod): number {
  const ta = createdAt(a)?.getTime();
  const tb = createdAt(b)?.getTime();
  if (ta !== tb) {
    if (ta === undefined) return 1;
    if (tb === undefined) return -1;
    return ta - tb;
  }
  const na = a.metadata?.name ?? '';
  const nb = b.metadata?.name ?? '';
  return na < nb ? -1 : na > nb ? 1 : 0;
}

function annotationTime(pod: V1Pod, key: string): Date | undefined {
  const value = pod.metadata?.annotations?.[key];
  return typeof value === 'string' ? parseTimestamp(value) : undefined;
}

function toDate(value: Date | string | undefined | null): Date | undefined {
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? undefined : value;
  return typeof value === 'string' ? parseTimestamp(value) : undefined;
}
