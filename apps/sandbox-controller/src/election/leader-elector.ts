import type { V1Lease } from '@kubernetes/client-node';
import { errorText, type Clock } from '@cli-mcp/common';
import { isAlreadyExists, isConflict, leaseBody, leaseRecordOf, sameRecord, type LeaseApi, type LeaseRecord } from '@cli-mcp/kube';
import type { ControllerLogger } from '../controller-logger.js';
import { ElectionTiming } from './election-timing.js';

export type ElectionRole = 'follower' | 'leader' | 'stopped';

export interface LeaderElectorOptions {
  readonly api: LeaseApi;
  readonly leaseName: string;
  /** This candidate's `holderIdentity` (unique per process). */
  readonly identity: string;
  readonly timing: ElectionTiming;
  /** Monotonic time and timers: every expiry decision is made on it (never on another machine's clock). */
  readonly clock: Clock;
  /** Wall time, only for the MicroTime stamps written into the Lease. */
  readonly wallClock: () => Date;
  /** [0, 1) for the followers' retry jitter; injected so tests are deterministic. */
  readonly random: () => number;
  readonly logger: ControllerLogger;
  /** Leadership began; `term` aborts the moment it ends (step-down, loss, stop). Writes must use it. */
  onStartedLeading(term: AbortSignal): void;
  /** Leadership ended: stop acting now. Called before anyone else can acquire the Lease. */
  onStoppedLeading(reason: string): void;
  /** The observed holder changed (`''` when released). */
  onNewLeader?(holder: string): void;
  /** Every attempt's outcome: `undefined` on success, else the API failure (for `/health` and metrics). */
  onAttempt?(error: unknown): void;
}

/**
 * Leader election on a `coordination.k8s.io/v1` Lease with client-go semantics (C-CTL-1; client-go
 * `leaderelection.go`): there is no maintained JS elector (stack-notes C), so this is ours.
 *
 * - Acquire: GET the Lease (create it on 404). Another holder's Lease is valid until `leaseDurationSeconds` after
 *   THIS candidate last saw the record change — observed monotonic time, never the holder's `renewTime`, so clock
 *   skew between candidates cannot cause a take-over. An expired or released (`holderIdentity: ''`) Lease is taken
 *   with a resourceVersion-guarded update: first writer wins, 409 = lost.
 * - Renew every `retryPeriod` (≈ duration / 3) with the cached resourceVersion (no GET); 409 = lost → step down.
 * - Step down when no renewal succeeded for `renewDeadline`, counted from when the last successful renewal was
 *   SENT. A successor acquires at the earliest `leaseDuration` after it saw that renewal applied (≥ sent), so
 *   this leader stops at least `leaseDuration − renewDeadline` before anyone can start (proved in the spec with
 *   a partitioned leader). A guard timer fires at the deadline even while a renewal hangs.
 * - `stop()` on SIGTERM releases: holder cleared, `leaseDurationSeconds: 1`, as client-go's `ReleaseOnCancel`.
 */
export class LeaderElector {
  private roleValue: ElectionRole = 'follower';
  private started = false;
  private observed?: { record: LeaseRecord; resourceVersion?: string; at: number };
  private lastRenewSentAt = 0;
  private term?: AbortController;
  private inFlight?: AbortController;
  private cancelTick?: () => void;
  private cancelGuard?: () => void;
  private running?: Promise<void>;

  constructor(private readonly options: LeaderElectorOptions) {}

  get role(): ElectionRole {
    return this.roleValue;
  }

  /** Leader right now: the role AND the renew deadline not yet passed (a late timer cannot extend leadership). */
  get isLeader(): boolean {
    return this.roleValue === 'leader' && this.options.clock.now() < this.lastRenewSentAt + this.options.timing.renewDeadlineMs;
  }

  /** The holder last observed (`''` released, `undefined` never read). */
  get holder(): string | undefined {
    return this.observed?.record.holderIdentity;
  }

  private get stopped(): boolean {
    return this.roleValue === 'stopped';
  }

  get identity(): string {
    return this.options.identity;
  }

  start(): void {
    if (this.started) return;
    this.started = true;
    this.scheduleTick(0);
  }

  /** Stops campaigning; as leader, steps down first and then releases the Lease (`release`, default true). */
  async stop(options: { release?: boolean } = {}): Promise<void> {
    if (this.roleValue === 'stopped') return;
    const wasLeader = this.roleValue === 'leader';
    const held = this.observed; // stepDown forgets the resourceVersion the release needs
    this.cancelTick?.();
    this.inFlight?.abort(new Error('elector stopped'));
    if (wasLeader) this.stepDown('stopping');
    this.roleValue = 'stopped';
    await this.running?.catch(() => undefined);
    if (wasLeader && held && (options.release ?? true)) await this.release(held);
  }

  private scheduleTick(delayMs: number): void {
    this.cancelTick = this.options.clock.schedule(delayMs, () => {
      this.running = this.tick();
    });
  }

  private async tick(): Promise<void> {
    if (this.roleValue === 'stopped') return;
    const { timing, clock } = this.options;
    const sentAt = clock.now();
    const attempt = await this.tryAcquireOrRenew(sentAt);
    if (this.stopped) return; // stop() ran while the request was in flight
    this.options.onAttempt?.(attempt.kind === 'failed' ? attempt.error : undefined);
    // A success that arrives after its own renew deadline proves nothing about now: the next attempt re-reads.
    if (attempt.kind === 'holding' && sentAt + timing.renewDeadlineMs > clock.now()) {
      this.lastRenewSentAt = sentAt;
      if (this.roleValue === 'follower') this.becomeLeader();
      this.armGuard();
    } else if (this.roleValue === 'leader') {
      const error = attempt.kind === 'failed' ? attempt.error : undefined;
      if (attempt.kind === 'held' || isConflict(error)) this.stepDown('lost the lease (409 Conflict on renew)');
      else if (!this.isLeader) this.stepDown(`renew deadline passed: ${error === undefined ? 'late answer' : errorText(error)}`);
    }
    // client-go JitterFactor 1.2 for candidates, so followers do not retry in lockstep; the leader renews on time.
    const period = this.roleValue === 'leader' ? timing.retryPeriodMs : timing.retryPeriodMs * (1 + 0.2 * this.options.random());
    this.scheduleTick(period);
  }

  /** One client-go `tryAcquireOrRenew`. */
  private async tryAcquireOrRenew(now: number): Promise<Attempt> {
    const { api, leaseName, identity, timing, clock } = this.options;
    const request = new AbortController();
    this.inFlight = request;
    const budget = this.roleValue === 'leader' ? Math.max(1, this.lastRenewSentAt + timing.renewDeadlineMs - now) : timing.retryPeriodMs;
    const cancelTimeout = clock.schedule(Math.min(budget, timing.requestTimeoutMs), () => request.abort(new Error('lease request timed out')));
    try {
      const wall = this.options.wallClock();
      if (this.roleValue === 'leader' && this.observed?.resourceVersion) {
        // Fast path: renew with the cached resourceVersion; a 409 means someone else wrote it (lost).
        const renewed = { ...this.observed.record, renewTime: wall };
        return await this.write(api.replaceLease(leaseBody(leaseName, renewed, this.observed.resourceVersion), request.signal));
      }
      const lease = await api.getLease(leaseName, request.signal);
      if (!lease) {
        const record: LeaseRecord = { holderIdentity: identity, leaseDurationSeconds: timing.leaseDurationSeconds, acquireTime: wall, renewTime: wall, leaseTransitions: 0 };
        return await this.write(api.createLease(leaseBody(leaseName, record), request.signal));
      }
      this.observe(lease);
      const current = this.observed!;
      const held = current.record.holderIdentity !== '' && current.record.holderIdentity !== identity;
      if (held && current.at + current.record.leaseDurationSeconds * 1000 > now) return { kind: 'held' };
      const mine = current.record.holderIdentity === identity;
      const record: LeaseRecord = {
        holderIdentity: identity,
        leaseDurationSeconds: timing.leaseDurationSeconds,
        acquireTime: mine ? current.record.acquireTime ?? wall : wall,
        renewTime: wall,
        leaseTransitions: mine ? current.record.leaseTransitions : current.record.leaseTransitions + 1,
      };
      return await this.write(api.replaceLease(leaseBody(leaseName, record, current.resourceVersion), request.signal));
    } catch (error) {
      // AlreadyExists on create: another candidate created it first; it is read on the next attempt.
      if (isAlreadyExists(error) || isConflict(error)) this.observed = this.observed && { ...this.observed, resourceVersion: undefined };
      return { kind: 'failed', error };
    } finally {
      cancelTimeout();
      if (this.inFlight === request) this.inFlight = undefined;
    }
  }

  private async write(written: Promise<V1Lease>): Promise<Attempt> {
    this.observe(await written);
    return { kind: 'holding' };
  }

  private observe(lease: V1Lease): void {
    const record = leaseRecordOf(lease);
    const previous = this.observed;
    const resourceVersion = lease.metadata?.resourceVersion;
    if (previous && sameRecord(previous.record, record)) {
      this.observed = { ...previous, resourceVersion };
      return;
    }
    this.observed = { record, resourceVersion, at: this.options.clock.now() };
    if (previous?.record.holderIdentity !== record.holderIdentity) this.options.onNewLeader?.(record.holderIdentity);
  }

  private becomeLeader(): void {
    this.roleValue = 'leader';
    this.term = new AbortController();
    this.options.logger.info('became leader', { lease: this.options.leaseName });
    this.options.onStartedLeading(this.term.signal);
  }

  /** Fires at the renew deadline even when the renewal in flight hangs (a partition must not extend leadership). */
  private armGuard(): void {
    this.cancelGuard?.();
    const deadline = this.lastRenewSentAt + this.options.timing.renewDeadlineMs;
    this.cancelGuard = this.options.clock.schedule(deadline - this.options.clock.now(), () => {
      if (this.roleValue === 'leader' && !this.isLeader) {
        this.inFlight?.abort(new Error('renew deadline passed'));
        this.stepDown('renew deadline passed without a successful renewal');
      }
    });
  }

  private stepDown(reason: string): void {
    if (this.roleValue !== 'leader') return;
    this.roleValue = 'follower';
    this.cancelGuard?.();
    this.term?.abort(new Error(`leadership ended: ${reason}`));
    this.term = undefined;
    // Our cached record is no proof of anything now: read the Lease before trying again.
    if (this.observed) this.observed = { ...this.observed, resourceVersion: undefined };
    this.options.logger.warn('stopped leading', { reason });
    this.options.onStoppedLeading(reason);
  }

  /** client-go release: holder cleared, duration 1 s, so waiting candidates take over at once. */
  private async release(current: NonNullable<LeaderElector['observed']>): Promise<void> {
    if (!current.resourceVersion || current.record.holderIdentity !== this.options.identity) return;
    const wall = this.options.wallClock();
    const record: LeaseRecord = { ...current.record, holderIdentity: '', leaseDurationSeconds: 1, acquireTime: wall, renewTime: wall };
    try {
      await this.options.api.replaceLease(leaseBody(this.options.leaseName, record, current.resourceVersion), AbortSignal.timeout(this.options.timing.requestTimeoutMs));
      this.options.logger.info('released the lease', { lease: this.options.leaseName });
    } catch (error) {
      this.options.logger.warn('could not release the lease; it expires on its own', { error: errorText(error) });
    }
  }
}

/** Outcome of one attempt: this candidate holds the Lease, another validly holds it, or the API failed. */
type Attempt = { readonly kind: 'holding' } | { readonly kind: 'held' } | { readonly kind: 'failed'; readonly error: unknown };
