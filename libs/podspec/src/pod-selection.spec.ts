import type { V1ContainerStatus, V1Pod } from '@kubernetes/client-node';
import { UNCLAIMABLE_ANNOTATION } from './labels.js';
import { describe, expect, it } from 'vitest';
import {
  CRASH_LOOP_RESTARTS, claimOrder, isCrashLooping, isLive, isMissingSecret, isServing, selectSessionPod, unclaimableReason,
} from './pod-selection.js';
import { pod } from '../../session/src/kubernetes/testing/strict-kube-api.js';

const names = (pods: { metadata?: { name?: string } }[]): Array<string | undefined> => pods.map((p) => p.metadata?.name);

describe('selectSessionPod', () => {
  it('takes the oldest of two Ready pods (Go TestGetOrCreatePod "picks the oldest")', () => {
    const young = pod({ name: 'young', session: 's', created: '2026-07-29T10:05:00Z' });
    const old = pod({ name: 'old', session: 's', created: '2026-07-29T10:00:00Z' });
    expect(selectSessionPod([young, old]).ready?.metadata?.name).toBe('old');
  });

  it('skips finished and terminating pods (Go §18.14); only finished ones count as an earlier sandbox', () => {
    const failed = pod({ name: 'failed', session: 's', phase: 'Failed', created: '2026-07-29T09:00:00Z' });
    const terminating = pod({ name: 'terminating', session: 's', deleting: true, created: '2026-07-29T09:30:00Z' });
    const live = pod({ name: 'live', session: 's' });
    const picked = selectSessionPod([failed, terminating, live]);
    expect(picked.ready?.metadata?.name).toBe('live');
    expect(picked.hadEarlierPod).toBe(true);
    expect(selectSessionPod([failed, terminating])).toEqual({ ready: undefined, pending: undefined, hadEarlierPod: true });
    expect(selectSessionPod([terminating]).hadEarlierPod).toBe(false);
  });

  it('prefers any serving pod over an older pending one, else awaits the oldest pending one', () => {
    const pendingOld = pod({ name: 'pending-old', session: 's', ready: false, created: '2026-07-29T09:00:00Z' });
    const pendingNew = pod({ name: 'pending-new', session: 's', ready: false, created: '2026-07-29T09:10:00Z' });
    const ready = pod({ name: 'ready', session: 's', created: '2026-07-29T10:00:00Z' });
    expect(selectSessionPod([pendingOld, ready])).toMatchObject({ ready: { metadata: { name: 'ready' } }, pending: undefined });
    expect(selectSessionPod([pendingNew, pendingOld]).pending?.metadata?.name).toBe('pending-old');
    expect(selectSessionPod([])).toEqual({ ready: undefined, pending: undefined, hadEarlierPod: false });
  });

  it('does not count a Ready pod without an IP as serving', () => {
    const noIp = pod({ name: 'no-ip', session: 's' });
    delete noIp.status?.podIP;
    expect(isServing(noIp)).toBe(false);
    expect(selectSessionPod([noIp]).pending?.metadata?.name).toBe('no-ip');
  });
});

describe('claimOrder', () => {
  it('puts Ready pods first, then oldest first, and drops finished and terminating ones', () => {
    const pods = [
      pod({ name: 'pending-oldest', ready: false, created: '2026-07-29T08:00:00Z' }),
      pod({ name: 'ready-new', created: '2026-07-29T10:00:00Z' }),
      pod({ name: 'ready-old', created: '2026-07-29T09:00:00Z' }),
      pod({ name: 'failed', phase: 'Failed', ready: false, created: '2026-07-29T07:00:00Z' }),
      pod({ name: 'succeeded', phase: 'Succeeded', ready: false }),
      pod({ name: 'terminating', deleting: true, created: '2026-07-29T07:00:00Z' }),
    ];
    expect(names(claimOrder(pods))).toEqual(['ready-old', 'ready-new', 'pending-oldest']);
  });

  it('breaks creation-time ties by name so every replica tries the same pod first', () => {
    const a = pod({ name: 'b-pod' });
    const b = pod({ name: 'a-pod' });
    expect(names(claimOrder([a, b]))).toEqual(['a-pod', 'b-pod']);
  });
});

describe('isLive', () => {
  it('is false for Failed, Succeeded and terminating pods', () => {
    expect(isLive(pod({ name: 'x' }))).toBe(true);
    expect(isLive(pod({ name: 'x', ready: false }))).toBe(true);
    expect(isLive(pod({ name: 'x', phase: 'Failed' }))).toBe(false);
    expect(isLive(pod({ name: 'x', phase: 'Succeeded' }))).toBe(false);
    expect(isLive(pod({ name: 'x', deleting: true }))).toBe(false);
  });
});

/** A pod whose one container has the given status fields. */
function withContainer(name: string, status: Partial<V1ContainerStatus>): V1Pod {
  const p = pod({ name, ready: status.ready ?? false });
  p.status!.containerStatuses = [{ name: 'sandbox', image: 'i', imageID: '', ready: false, restartCount: 0, ...status }];
  return p;
}

describe('isCrashLooping', () => {
  it('is true in CrashLoopBackOff, or after CRASH_LOOP_RESTARTS restarts while not ready', () => {
    expect(isCrashLooping(withContainer('backoff', { restartCount: 1, state: { waiting: { reason: 'CrashLoopBackOff' } } }))).toBe(true);
    expect(isCrashLooping(withContainer('flapping', { restartCount: CRASH_LOOP_RESTARTS, state: { running: {} } }))).toBe(true);
  });

  it('is false for a healthy pod, a pod restarted a few times, and one that recovered after many restarts', () => {
    expect(isCrashLooping(pod({ name: 'fresh' }))).toBe(false);
    expect(isCrashLooping(withContainer('restarted', { restartCount: CRASH_LOOP_RESTARTS - 1, state: { running: {} } }))).toBe(false);
    expect(isCrashLooping(withContainer('recovered', { restartCount: 9, ready: true, state: { running: {} } }))).toBe(false);
  });
});

describe('unclaimableReason', () => {
  it('names why a pod must not be claimed (C-CTL-5), or undefined', () => {
    const marked = pod({ name: 'marked' });
    marked.metadata!.annotations = { [UNCLAIMABLE_ANNOTATION]: 'token-conflict' };
    expect(unclaimableReason(pod({ name: 'ok' }))).toBeUndefined();
    expect(unclaimableReason(pod({ name: 'pending', ready: false }))).toBeUndefined();
    expect(unclaimableReason(pod({ name: 't', deleting: true }))).toBe('terminating');
    expect(unclaimableReason(pod({ name: 'f', phase: 'Failed' }))).toBe('finished');
    expect(unclaimableReason(withContainer('c', { state: { waiting: { reason: 'CrashLoopBackOff' } } }))).toBe('crash-looping');
    expect(unclaimableReason(marked)).toBe('marked');
  });
});

describe('isMissingSecret', () => {
  const blocked = (message: string): V1Pod => withContainer('p', { state: { waiting: { reason: 'CreateContainerConfigError', message } } });

  it('recognises the kubelet\'s CreateContainerConfigError for exactly that Secret', () => {
    expect(isMissingSecret(blocked('secret "cli-mcp-auth-oc-s-1234abcd" not found'), 'cli-mcp-auth-oc-s-1234abcd')).toBe(true);
    expect(isMissingSecret(blocked('secret "aws" not found'), 'cli-mcp-auth-oc-s-1234abcd')).toBe(false);
    expect(isMissingSecret(withContainer('p', { state: { waiting: { reason: 'ContainerCreating' } } }), 'x')).toBe(false);
    expect(isMissingSecret(pod({ name: 'ready' }), 'x')).toBe(false);
  });
});
