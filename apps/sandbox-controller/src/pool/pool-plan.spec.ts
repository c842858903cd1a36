import { UNCLAIMABLE_ANNOTATION, sandboxSpecHash, withEgressProxyAddress } from '@cli-mcp/podspec';
import { describe, expect, it } from 'vitest';
import { claim, crashLooping, podConfig, poolPod, ready, WALL_START } from '../../test/fixtures.js';
import { isBroken, planPool } from './pool-plan.js';

const HASH = sandboxSpecHash(podConfig());
const OLD_CFG = podConfig({ image: 'quay.io/example/sandbox:0' });
const at = (seconds: number): Date => new Date(WALL_START + seconds * 1000);
const names = (pods: readonly { metadata?: { name?: string } }[]): string[] => pods.map((p) => p.metadata!.name!);

describe(planPool.name, () => {
  it('creates the deficit, counting answered-but-unseen creates as slots', () => {
    expect(planPool({ pods: [], desired: 3, specHash: HASH, pendingCreates: 0 }).create).toBe(3);
    expect(planPool({ pods: [poolPod('p1')], desired: 3, specHash: HASH, pendingCreates: 2 }).create).toBe(0);
  });

  it('ignores every pod that carries a session label (never the pool’s to count, trim or replace)', () => {
    const claimed = poolPod('claimed');
    claim(claimed, 's1', at(0));
    const failedSession = poolPod('failed-session');
    claim(failedSession, 's2', at(0));
    failedSession.status = { phase: 'Failed' };
    const plan = planPool({ pods: [claimed, failedSession], desired: 1, specHash: HASH, pendingCreates: 0 });
    expect(plan).toMatchObject({ create: 1, trim: [], replace: [] });
  });

  it('counts terminating pods as slots (C-CTL-6), but never broken ones', () => {
    const terminating = poolPod('leaving');
    terminating.metadata!.deletionTimestamp = at(5);
    const failed = poolPod('failed');
    failed.status = { phase: 'Failed' };
    const plan = planPool({ pods: [terminating, failed], desired: 2, specHash: HASH, pendingCreates: 0 });
    expect(plan.create).toBe(1);
    expect(plan.counts).toMatchObject({ slots: 1, terminating: 1, broken: 1 });
  });

  it('replaces Failed and crash-looping pods, not those already being deleted', () => {
    const failed = poolPod('failed');
    failed.status = { phase: 'Failed' };
    const looping = poolPod('looping');
    crashLooping(looping);
    const failedLeaving = poolPod('failed-leaving');
    failedLeaving.status = { phase: 'Failed' };
    failedLeaving.metadata!.deletionTimestamp = at(1);
    const plan = planPool({ pods: [failed, looping, failedLeaving], desired: 2, specHash: HASH, pendingCreates: 0 });
    expect(plan.replace.map((d) => [d.pod.metadata!.name, d.reason])).toEqual([['failed', 'broken'], ['looping', 'broken']]);
    expect(plan.create).toBe(2);
  });

  it('recreates pods of an older spec hash: deleted now, still slots meanwhile (claimable)', () => {
    const old = poolPod('old', OLD_CFG);
    ready(old);
    const plan = planPool({ pods: [old, poolPod('new')], desired: 2, specHash: HASH, pendingCreates: 0 });
    expect(plan.replace.map((d) => [d.pod.metadata!.name, d.reason])).toEqual([['old', 'stale']]);
    expect(plan.create).toBe(0);
    expect(plan.counts).toMatchObject({ stale: 1, ready: 1 });
  });

  it('without DNS, also recreates pods built for another gateway address once the current one is known (C-EGR-1)', () => {
    const cfg = podConfig({ egressGateway: true });
    const hash = sandboxSpecHash(cfg);
    const old = poolPod('old', withEgressProxyAddress(cfg, '10.96.0.10'));
    const current = poolPod('current', withEgressProxyAddress(cfg, '10.96.0.11'));
    // The address is not in the spec hash: both pods carry the current one.
    expect([old, current].map((p) => p.metadata!.annotations!['cli-mcp.redhat.com/spec-hash'])).toEqual([hash, hash]);
    const plan = planPool({ pods: [old, current], desired: 2, specHash: hash, proxyAddress: '10.96.0.11', pendingCreates: 0 });
    expect(plan.replace.map((d) => [d.pod.metadata!.name, d.reason])).toEqual([['old', 'stale']]);
    // An address not learnt yet judges nothing.
    expect(planPool({ pods: [old, current], desired: 2, specHash: hash, pendingCreates: 0 }).replace).toEqual([]);
  });

  it('trims the surplus oldest first, among current pods only', () => {
    const pods = [poolPod('young', podConfig(), at(30)), poolPod('oldest', podConfig(), at(10)), poolPod('middle', podConfig(), at(20))];
    expect(names(planPool({ pods, desired: 1, specHash: HASH, pendingCreates: 0 }).trim)).toEqual(['oldest', 'middle']);
    expect(planPool({ pods, desired: 3, specHash: HASH, pendingCreates: 0 }).trim).toEqual([]);
  });

  it('reports Ready pool pods (a claim gets one at once)', () => {
    const a = poolPod('a');
    ready(a);
    expect(planPool({ pods: [a, poolPod('b')], desired: 2, specHash: HASH, pendingCreates: 0 }).counts.ready).toBe(1);
  });
});

describe(isBroken.name, () => {
  it('is what a claim skips for good: finished, crash-looping, marked unclaimable — not merely terminating', () => {
    const pod = poolPod('x');
    expect(isBroken(pod)).toBe(false);
    crashLooping(pod);
    expect(isBroken(pod)).toBe(true);
    const marked = poolPod('marked');
    marked.metadata!.annotations![UNCLAIMABLE_ANNOTATION] = 'token-conflict';
    expect(isBroken(marked)).toBe(true);
    const leaving = poolPod('leaving');
    leaving.metadata!.deletionTimestamp = at(1);
    expect(isBroken(leaving)).toBe(false);
  });
});
