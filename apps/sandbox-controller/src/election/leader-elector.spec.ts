import { FakeClock } from '@cli-mcp/testing';
import { describe, expect, it } from 'vitest';
import { silentControllerLogger } from '../controller-logger.js';
import { CandidateLeaseApi, LeaseStore } from '../../test/fake-lease-api.js';
import { ElectionTiming } from './election-timing.js';
import { LeaderElector } from './leader-elector.js';

const LEASE = 'cli-mcp-oc-controller';
const TIMING = new ElectionTiming(15_000); // renew every 5 s, step down after 10 s
const WALL_BASE = Date.parse('2026-07-29T10:00:00Z');

interface Candidate {
  readonly id: string;
  readonly elector: LeaderElector;
  readonly api: CandidateLeaseApi;
  readonly events: Array<{ at: number; what: 'started' | 'stopped'; reason?: string }>;
  /** Each attempt's outcome: undefined = the API answered. */
  readonly attempts: unknown[];
  term?: AbortSignal;
}

function setup(skewsMs: Record<string, number>) {
  const clock = new FakeClock();
  const store = new LeaseStore(clock);
  const candidates = new Map<string, Candidate>();
  let seed = 1;
  for (const [id, skew] of Object.entries(skewsMs)) {
    const api = new CandidateLeaseApi(store, id);
    const events: Candidate['events'] = [];
    const attempts: unknown[] = [];
    const candidate: Candidate = {
      id,
      api,
      events,
      attempts,
      elector: new LeaderElector({
        api,
        leaseName: LEASE,
        identity: id,
        timing: TIMING,
        clock,
        wallClock: () => new Date(WALL_BASE + clock.now() + skew),
        random: () => ((seed = (seed * 48271) % 2147483647) / 2147483647),
        logger: silentControllerLogger,
        onStartedLeading: (term) => {
          candidate.term = term;
          events.push({ at: clock.now(), what: 'started' });
        },
        onStoppedLeading: (reason) => events.push({ at: clock.now(), what: 'stopped', reason }),
        onAttempt: (error) => attempts.push(error),
      }),
    };
    candidates.set(id, candidate);
  }
  const leaders = (): string[] => [...candidates.values()].filter((c) => c.elector.isLeader).map((c) => c.id);
  /** Advances fake time in small steps, letting the (fake, instant) API answer in between. */
  const run = async (ms: number, eachStep?: () => void): Promise<void> => {
    for (let t = 0; t < ms; t += 50) {
      clock.advance(50);
      for (let i = 0; i < 5; i++) await Promise.resolve();
      eachStep?.();
    }
  };
  const get = (id: string): Candidate => candidates.get(id)!;
  return { clock, store, candidates, leaders, run, get };
}

describe(LeaderElector.name, () => {
  it('creates a missing Lease with six-digit MicroTimes, leads, and renews every third of the duration without GETs', async () => {
    const { store, get, run } = setup({ a: 0 });
    const a = get('a');
    a.elector.start();
    await run(100);
    expect(a.elector.role).toBe('leader');
    expect(a.events).toEqual([{ at: expect.any(Number), what: 'started' }]);
    expect(store.current).toMatchObject({ holderIdentity: 'a', leaseDurationSeconds: 15, leaseTransitions: 0 });
    const requestsAfterAcquire = a.api.requests;
    await run(20_000);
    const renewals = store.writes.filter((w) => w.by === 'a' && w.verb === 'update');
    expect(renewals).toHaveLength(4); // about every 5 s
    expect(renewals.slice(1).map((w, i) => w.at - renewals[i]!.at)).toEqual([5000, 5000, 5000]);
    expect(a.api.requests - requestsAfterAcquire).toBe(4); // one PUT each: the cached resourceVersion, no GET
    // Renewals move renewTime and keep acquireTime and the transition count (client-go).
    expect(store.current?.acquireTime).toEqual(store.writes[0]!.record.acquireTime);
    expect(store.current!.renewTime!.getTime() - store.writes[0]!.record.renewTime!.getTime()).toBeGreaterThanOrEqual(20_000);
    expect(store.current?.leaseTransitions).toBe(0);
  });

  it('lets exactly one of three candidates lead, the others follow and name the holder', async () => {
    const { get, run, leaders, candidates } = setup({ a: 0, b: 0, c: 0 });
    for (const c of candidates.values()) c.elector.start();
    const seen: string[][] = [];
    await run(60_000, () => seen.push(leaders()));
    expect(seen.every((l) => l.length <= 1)).toBe(true);
    expect(seen.slice(10).every((l) => l.length === 1)).toBe(true);
    const leader = leaders()[0]!;
    for (const c of candidates.values()) {
      expect(c.elector.holder).toBe(leader);
      expect(c.events.filter((e) => e.what === 'started')).toHaveLength(c.id === leader ? 1 : 0);
    }
    expect(get(leader).elector.role).toBe('leader');
  });

  it('releases on stop (holder cleared, duration 1 s): a follower takes over within one retry period', async () => {
    const { store, get, run, clock } = setup({ a: 0, b: 0 });
    get('a').elector.start();
    await run(200);
    get('b').elector.start();
    await run(7_000);
    expect(get('a').elector.isLeader).toBe(true);
    await get('a').elector.stop();
    const releasedAt = clock.now();
    expect(store.current).toMatchObject({ holderIdentity: '', leaseDurationSeconds: 1 });
    expect(get('a').term?.aborted).toBe(true);
    await run(7_000);
    const started = get('b').events.find((e) => e.what === 'started')!;
    expect(started.at - releasedAt).toBeLessThanOrEqual(TIMING.retryPeriodMs * 1.2 + 50);
    expect(store.current).toMatchObject({ holderIdentity: 'b', leaseTransitions: 1, leaseDurationSeconds: 15 });
  });

  it('hands over from a crashed leader (no release) only after the lease duration, and within one more retry', async () => {
    const { store, get, run } = setup({ a: 0, b: 0 });
    get('a').elector.start();
    await run(200);
    get('b').elector.start();
    await run(9_000);
    await get('a').elector.stop({ release: false }); // a process killed mid-term writes nothing more
    const lastRenewal = store.writes.filter((w) => w.by === 'a').at(-1)!.at;
    await run(30_000);
    const started = get('b').events.find((e) => e.what === 'started')!;
    expect(started.at - lastRenewal).toBeGreaterThanOrEqual(TIMING.leaseDurationMs);
    expect(started.at - lastRenewal).toBeLessThanOrEqual(TIMING.leaseDurationMs + TIMING.retryPeriodMs * 1.2 + 100);
  });

  it('a partitioned leader stops acting BEFORE its successor starts, and before the lease could expire', async () => {
    const { store, get, run, leaders } = setup({ a: 0, b: 0 });
    get('a').elector.start();
    await run(200);
    get('b').elector.start();
    await run(8_000);
    get('a').api.mode = 'partitioned';
    const lastRenewal = store.writes.filter((w) => w.by === 'a').at(-1)!.at;
    const overlap: string[][] = [];
    await run(40_000, () => overlap.push(leaders()));
    const stopped = get('a').events.find((e) => e.what === 'stopped')!;
    const started = get('b').events.find((e) => e.what === 'started')!;
    expect(stopped.at).toBeLessThanOrEqual(lastRenewal + TIMING.renewDeadlineMs);
    expect(started.at).toBeGreaterThanOrEqual(lastRenewal + TIMING.leaseDurationMs);
    expect(stopped.at).toBeLessThan(started.at);
    expect(started.at - stopped.at).toBeGreaterThanOrEqual(TIMING.leaseDurationMs - TIMING.renewDeadlineMs);
    expect(get('a').term?.aborted).toBe(true);
    expect(overlap.every((l) => l.length <= 1)).toBe(true);
    // Healed, the old leader sees b's fresh Lease and follows.
    get('a').api.mode = 'ok';
    await run(20_000);
    expect(leaders()).toEqual(['b']);
    expect(get('a').elector.holder).toBe('b');
  });

  it('is not fooled by clock skew: a candidate an hour ahead does not take a live Lease, one an hour behind keeps it', async () => {
    const { get, run, leaders, store } = setup({ behind: -3_600_000, ahead: 3_600_000 });
    get('behind').elector.start();
    await run(200);
    get('ahead').elector.start();
    const seen: string[][] = [];
    await run(60_000, () => seen.push(leaders()));
    // To "ahead", behind's renewTime is always an hour old; it still follows, judging by when IT saw renewals.
    expect(seen.every((l) => l.length === 1 && l[0] === 'behind')).toBe(true);
    expect(store.writes.every((w) => w.by === 'behind')).toBe(true);
    await get('behind').elector.stop({ release: false });
    await run(25_000);
    expect(leaders()).toEqual(['ahead']);
  });

  it('steps down at once when a renewal answers 409 (someone else wrote the Lease), then follows the new holder', async () => {
    const { store, get, run, clock } = setup({ a: 0 });
    get('a').elector.start();
    await run(2_000);
    store.overwrite({ holderIdentity: 'intruder', renewTime: new Date(WALL_BASE + clock.now()) });
    await run(5_000);
    expect(get('a').events.at(-1)).toMatchObject({ what: 'stopped', reason: 'lost the lease (409 Conflict on renew)' });
    expect(get('a').term?.aborted).toBe(true);
    await run(12_000);
    expect(get('a').elector.role).toBe('follower');
    expect(get('a').elector.holder).toBe('intruder');
  });

  it('never leads while the API fails, reports each failure, and leads once it answers again', async () => {
    const { get, run } = setup({ a: 0 });
    const a = get('a');
    const attempts = a.attempts;
    a.api.mode = 'failing';
    a.elector.start();
    await run(30_000);
    expect(a.elector.role).toBe('follower');
    expect(attempts.length).toBeGreaterThanOrEqual(4);
    expect(attempts.every((e) => e instanceof Error && /ECONNREFUSED/.test(e.message))).toBe(true);
    a.api.mode = 'ok';
    await run(7_000);
    expect(a.elector.role).toBe('leader');
    expect(attempts.at(-1)).toBeUndefined();
  });
});
