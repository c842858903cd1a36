import type { V1Pod } from '@kubernetes/client-node';
import { SESSION_ID_LABEL } from '@cli-mcp/podspec';
import { beforeEach, describe, expect, it } from 'vitest';
import { PodAttribution } from './pod-attribution.js';

function pod(uid: string, ip: string | undefined, sessionId?: string, extra: { deleting?: boolean; phase?: string; hostNetwork?: boolean } = {}): V1Pod {
  return {
    metadata: {
      uid, name: `p-${uid}`, labels: sessionId === undefined ? {} : { [SESSION_ID_LABEL]: sessionId },
      ...(extra.deleting ? { deletionTimestamp: new Date() } : {}),
    },
    spec: { containers: [], ...(extra.hostNetwork ? { hostNetwork: true } : {}) },
    status: { podIP: ip, phase: extra.phase ?? 'Running' },
  };
}

describe('PodAttribution (C-EGR-6)', () => {
  let calls: string[];
  let attribution: PodAttribution;
  beforeEach(() => {
    calls = [];
    attribution = new PodAttribution('inst', { revoke: (id) => calls.push(`revoke ${id}`), admit: (id) => calls.push(`admit ${id}`) });
  });

  it('maps a session pod\'s IP to its session, with or without the v4-mapped prefix; unknown and warm IPs to nobody', () => {
    attribution.apply({ type: 'added', pod: pod('a', '10.0.0.7', 's1') });
    attribution.apply({ type: 'added', pod: pod('w', '10.0.0.8') });
    expect(attribution.contextOf('10.0.0.7')).toEqual({ sessionId: 's1', instance: 'inst' });
    expect(attribution.contextOf('::ffff:10.0.0.7')).toEqual({ sessionId: 's1', instance: 'inst' });
    expect(attribution.contextOf('10.0.0.8')).toBeUndefined();
    expect(attribution.contextOf('10.0.0.9')).toBeUndefined();
    expect(attribution.contextOf(undefined)).toBeUndefined();
    expect(calls).toEqual(['admit s1']);
  });

  it('revokes on delete, on terminating, on a lost label and on an IP change; nothing for an unchanged update', () => {
    attribution.apply({ type: 'added', pod: pod('a', '10.0.0.1', 's1') });
    attribution.apply({ type: 'updated', pod: pod('a', '10.0.0.1', 's1') });
    expect(calls).toEqual(['admit s1']);
    attribution.apply({ type: 'updated', pod: pod('a', '10.0.0.1', 's1', { deleting: true }) });
    expect(calls).toEqual(['admit s1', 'revoke s1']);
    expect(attribution.contextOf('10.0.0.1')).toBeUndefined();

    attribution.apply({ type: 'added', pod: pod('b', '10.0.0.2', 's2') });
    attribution.apply({ type: 'updated', pod: pod('b', '10.0.0.2') });
    expect(calls.slice(-2)).toEqual(['admit s2', 'revoke s2']);

    attribution.apply({ type: 'added', pod: pod('c', '10.0.0.3', 's3') });
    attribution.apply({ type: 'updated', pod: pod('c', '10.0.0.4', 's3') });
    expect(calls.slice(-3)).toEqual(['admit s3', 'revoke s3', 'admit s3']);
    expect(attribution.contextOf('10.0.0.3')).toBeUndefined();
    expect(attribution.contextOf('10.0.0.4')?.sessionId).toBe('s3');

    attribution.apply({ type: 'deleted', pod: pod('c', '10.0.0.4', 's3') });
    expect(calls.at(-1)).toBe('revoke s3');
  });

  it('admits a session again when its label appears on a new pod, served from the new IP only', () => {
    attribution.apply({ type: 'added', pod: pod('a', '10.0.0.1', 's1') });
    attribution.apply({ type: 'deleted', pod: pod('a', '10.0.0.1', 's1') });
    attribution.apply({ type: 'added', pod: pod('w', '10.0.0.5') });
    attribution.apply({ type: 'updated', pod: pod('w', '10.0.0.5', 's1') });
    expect(calls).toEqual(['admit s1', 'revoke s1', 'admit s1']);
    expect(attribution.contextOf('10.0.0.5')?.sessionId).toBe('s1');
    expect(attribution.contextOf('10.0.0.1')).toBeUndefined();
  });

  it('a reused IP maps to the new pod\'s session only, and to nobody while two live pods claim it', () => {
    attribution.apply({ type: 'added', pod: pod('old', '10.0.0.9', 's-old') });
    attribution.apply({ type: 'added', pod: pod('new', '10.0.0.9', 's-new') }); // seen before the old pod's delete
    expect(attribution.contextOf('10.0.0.9')).toBeUndefined();
    attribution.apply({ type: 'deleted', pod: pod('old', '10.0.0.9', 's-old') });
    expect(attribution.contextOf('10.0.0.9')).toEqual({ sessionId: 's-new', instance: 'inst' });
    expect(calls).toContain('revoke s-old');
    expect(calls).not.toContain('revoke s-new');
  });

  it('a replacement pod of the same session keeps it admitted when the old pod goes', () => {
    attribution.apply({ type: 'added', pod: pod('a', '10.0.0.1', 's1') });
    attribution.apply({ type: 'added', pod: pod('b', '10.0.0.2', 's1') });
    attribution.apply({ type: 'deleted', pod: pod('a', '10.0.0.1', 's1') });
    expect(calls.slice(-2)).toEqual(['revoke s1', 'admit s1']);
    expect(attribution.contextOf('10.0.0.2')?.sessionId).toBe('s1');
  });

  it('ignores pods without an IP, finished pods and host-network pods', () => {
    attribution.apply({ type: 'added', pod: pod('a', undefined, 's1') });
    attribution.apply({ type: 'added', pod: pod('b', '10.0.0.2', 's2', { phase: 'Failed' }) });
    attribution.apply({ type: 'added', pod: pod('c', '10.0.0.3', 's3', { hostNetwork: true }) });
    expect([attribution.contextOf('10.0.0.2'), attribution.contextOf('10.0.0.3')]).toEqual([undefined, undefined]);
    expect(calls).toEqual([]);
  });

  it('resync drops pods the list no longer has (a missed delete) and revokes their sessions', () => {
    attribution.apply({ type: 'added', pod: pod('a', '10.0.0.1', 's1') });
    attribution.apply({ type: 'added', pod: pod('b', '10.0.0.2', 's2') });
    attribution.resync([pod('b', '10.0.0.2', 's2')]);
    expect(calls).toEqual(['admit s1', 'admit s2', 'revoke s1']);
    expect(attribution.contextOf('10.0.0.1')).toBeUndefined();
  });
});
