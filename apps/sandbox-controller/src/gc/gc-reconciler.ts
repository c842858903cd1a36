import type { V1Pod, V1Secret } from '@kubernetes/client-node';
import { CLAIMED_AT_ANNOTATION, SESSION_ID_LABEL, assignedSelector, formatTimestamp, sandboxSelector } from '@cli-mcp/podspec';
import { errorText } from '@cli-mcp/common';
import { isConflict, isNotFound } from '@cli-mcp/kube';
import { preconditionsOf } from '../kube/controller-kube-api.port.js';
import { Backoff } from '@cli-mcp/common';
import { withBoundedSignal } from '../reconcile/bounded-signal.js';
import type { PassResult } from '../reconcile/reconcile-loop.js';
import type { ReconcilerDeps } from '../reconcile/reconciler-deps.js';
import { planGc, type ExpiredSession } from './gc-plan.js';

export interface GcReconcilerOptions extends ReconcilerDeps {
  readonly instance: string;
  readonly idleTimeoutMs: number;
  /** `--max-session-age`; undefined = off (the default). */
  readonly maxSessionAgeMs: number | undefined;
  /** A session Secret without any pod is swept once it is older than this (`--orphan-secret-grace`). */
  readonly orphanGraceMs: number;
}

/** Orphan Secrets are looked for by a list at most this often (the only periodic list the controller makes). */
export const ORPHAN_SWEEP_INTERVAL_MS = 5 * 60_000;

/**
 * One pass of idle and age GC (C-CTL-3, C-CTL-7) over the informer's cache, plus the orphan-Secret sweep: an
 * expired session's pods are deleted with their observed uid + resourceVersion (C-CTL-6) — a last-activity stamp
 * that lands meanwhile makes the delete fail with 409 and the session lives on — then its Secret. The next pass
 * is due at the soonest expiry (or the next sweep), and every watch event re-plans at no API cost.
 */
export class GcReconciler {
  private nextSweepAt: number;
  private readonly retry: Backoff;
  private failedThisPass = false;

  constructor(private readonly options: GcReconcilerOptions) {
    this.nextSweepAt = options.clock.now(); // the first leader pass sweeps
    this.retry = new Backoff({ initialMs: 1000, maxMs: 60_000, random: () => 0.5 });
  }

  async pass(signal: AbortSignal): Promise<PassResult> {
    const { informer, clock } = this.options;
    if (!informer.synced) return {};
    this.failedThisPass = false;
    const plan = planGc({
      pods: informer.pods(),
      now: this.options.wallClock(),
      idleTimeoutMs: this.options.idleTimeoutMs,
      maxSessionAgeMs: this.options.maxSessionAgeMs,
    });
    for (const { pod, startedAt } of plan.unstampedClaims) await this.stampClaim(pod, startedAt, signal);
    for (const session of plan.expired) await this.endSession(session, signal);
    if (clock.now() >= this.nextSweepAt && this.options.isLeader()) {
      this.nextSweepAt = clock.now() + ORPHAN_SWEEP_INTERVAL_MS;
      await this.sweepOrphanSecrets(signal);
    }
    const untilSweep = this.nextSweepAt - clock.now();
    let next = plan.nextCheckMs === undefined ? untilSweep : Math.min(plan.nextCheckMs, untilSweep);
    // A failed call (5xx, 429, timeout) is retried soon with a growing back-off, not at the next expiry.
    if (this.failedThisPass) next = Math.min(next, this.retry.next());
    else this.retry.reset();
    return { requeueAfterMs: next };
  }

  /** `claimed-at` for a claimed pool pod, so `--max-session-age` counts from the claim (not the pool's created-at). */
  private async stampClaim(pod: V1Pod, startedAt: Date, signal: AbortSignal): Promise<void> {
    if (!this.options.isLeader()) return;
    const name = pod.metadata?.name ?? '';
    try {
      await this.bounded(signal, (s) => this.options.api.annotatePod(name, { [CLAIMED_AT_ANNOTATION]: formatTimestamp(startedAt) }, s));
    } catch (error) {
      if (!isNotFound(error)) this.failed('stamp claimed-at', { pod: name }, error);
    }
  }

  private async endSession(session: ExpiredSession, signal: AbortSignal): Promise<void> {
    const fields = { session_id: session.sessionId, reason: session.reason, [session.reason === 'idle' ? 'idle_seconds' : 'age_seconds']: session.seconds };
    for (const pod of session.pods) {
      const preconditions = preconditionsOf(pod);
      if (!preconditions || !this.options.isLeader()) return;
      try {
        await this.bounded(signal, (s) => this.options.api.deletePod(pod.metadata?.name ?? '', preconditions, s));
      } catch (error) {
        if (isNotFound(error)) continue;
        // Changed since observed (a command just stamped last-activity): the next pass decides on the new state.
        if (isConflict(error)) return this.options.logger.debug('gc: session pod changed before its delete; kept', fields);
        return this.failed('delete session pod', { ...fields, pod: pod.metadata?.name }, error);
      }
    }
    await this.deleteSessionSecrets(session.sessionId, fields, signal);
    this.options.metrics.gcDeletions.inc({ reason: session.reason });
    this.options.logger.info(session.reason === 'idle' ? 'removed idle session' : 'removed session past --max-session-age', fields);
  }

  /** The session's Secret goes with its pods (listed by its labels: deletes need its uid and resourceVersion). */
  private async deleteSessionSecrets(sessionId: string, fields: Record<string, unknown>, signal: AbortSignal): Promise<void> {
    let secrets: V1Secret[];
    try {
      secrets = await this.bounded(signal, (s) => this.options.api.listSecrets(assignedSelector(this.options.instance, sessionId), s));
    } catch (error) {
      return this.failed('list session secret', fields, error); // the orphan sweep gets it later
    }
    for (const secret of secrets) await this.deleteSecret(secret, fields, signal);
  }

  private async sweepOrphanSecrets(signal: AbortSignal): Promise<void> {
    let secrets: V1Secret[];
    try {
      secrets = await this.bounded(signal, (s) => this.options.api.listSecrets(sandboxSelector(this.options.instance), s));
    } catch (error) {
      this.nextSweepAt = this.options.clock.now(); // retried with the pass's back-off
      return this.failed('list secrets for the orphan sweep', {}, error);
    }
    const withPods = new Set(this.options.informer.pods().map((pod) => pod.metadata?.labels?.[SESSION_ID_LABEL]));
    const now = this.options.wallClock().getTime();
    for (const secret of secrets) {
      const sessionId = secret.metadata?.labels?.[SESSION_ID_LABEL];
      if (sessionId === undefined || withPods.has(sessionId)) continue;
      const created = toTime(secret.metadata?.creationTimestamp);
      // A Secret is made just before its pod (create path) or just after a claim: the grace covers that gap.
      if (created === undefined || now - created <= this.options.orphanGraceMs) continue;
      if (await this.deleteSecret(secret, { session_id: sessionId }, signal)) {
        this.options.metrics.gcDeletions.inc({ reason: 'orphan_secret' });
        this.options.logger.info('removed orphan session secret', { session_id: sessionId, secret: secret.metadata?.name });
      }
    }
  }

  private async deleteSecret(secret: V1Secret, fields: Record<string, unknown>, signal: AbortSignal): Promise<boolean> {
    const preconditions = preconditionsOf(secret);
    if (!preconditions || !this.options.isLeader()) return false;
    try {
      await this.bounded(signal, (s) => this.options.api.deleteSecret(secret.metadata?.name ?? '', preconditions, s));
      return true;
    } catch (error) {
      if (!isNotFound(error) && !isConflict(error)) this.failed('delete secret', { ...fields, secret: secret.metadata?.name }, error);
      return false;
    }
  }

  private bounded<T>(signal: AbortSignal, request: (signal: AbortSignal) => Promise<T>): Promise<T> {
    return withBoundedSignal(signal, this.options.clock, this.options.writeTimeoutMs, request);
  }

  private failed(what: string, fields: Record<string, unknown>, error: unknown): void {
    this.failedThisPass = true;
    this.options.metrics.error('gc', error);
    this.options.logger.warn(`gc: ${what} failed`, { ...fields, error: errorText(error) });
  }
}

function toTime(value: Date | string | undefined): number | undefined {
  if (value instanceof Date) return value.getTime();
  const parsed = value === undefined ? Number.NaN : Date.parse(value);
  return Number.isNaN(parsed) ? undefined : parsed;
}
