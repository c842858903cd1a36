import { describe, expect, it } from 'vitest';
import { CLAIMED_AT_ANNOTATION, CREATED_AT_ANNOTATION, LAST_ACTIVITY_ANNOTATION } from './labels.js';
import { createdAt, idleTime, isPodReady, isTerminal, isTerminating, lastActivity, oldestFirst, podAge, sessionStartedAt } from './pod-status.js';
import { NOW, observedPod } from './testing/fixtures.js';

const T0 = '2026-07-29T10:00:00Z';
const T1 = '2026-07-29T11:00:00Z';
const T2 = '2026-07-29T12:00:00Z';

// Go TestIsPodReady (§17.1).
describe(isPodReady.name, () => {
  it('is true for Running with Ready=True', () => {
    expect(isPodReady(observedPod({ phase: 'Running', ready: 'True' }))).toBe(true);
  });

  it.each([
    ['Running, Ready=False', observedPod({ phase: 'Running', ready: 'False' })],
    ['Pending, Ready=True', observedPod({ phase: 'Pending', ready: 'True' })],
    ['Running without conditions', observedPod({ phase: 'Running' })],
    ['no status', { metadata: { name: 'x' } }],
  ])('is false for %s', (_case, pod) => {
    expect(isPodReady(pod)).toBe(false);
  });
});

describe(isTerminal.name, () => {
  it.each([['Failed', true], ['Succeeded', true], ['Running', false], ['Pending', false], ['Unknown', false], [undefined, false]])(
    'phase %s → %s',
    (phase, expected) => {
      expect(isTerminal(observedPod({ phase }))).toBe(expected);
    },
  );
});

describe(isTerminating.name, () => {
  it('is true once deletionTimestamp is set, even while Ready', () => {
    expect(isTerminating(observedPod({ phase: 'Running', ready: 'True', deletionTimestamp: NOW }))).toBe(true);
    expect(isTerminating(observedPod({ phase: 'Running', ready: 'True' }))).toBe(false);
  });
});

describe(lastActivity.name, () => {
  it('prefers last-activity, then created-at, then creationTimestamp', () => {
    const all = { [LAST_ACTIVITY_ANNOTATION]: T2, [CREATED_AT_ANNOTATION]: T1 };
    expect(lastActivity(observedPod({ annotations: all, creationTimestamp: new Date(T0) }))?.toISOString()).toBe('2026-07-29T12:00:00.000Z');
    expect(lastActivity(observedPod({ annotations: { [CREATED_AT_ANNOTATION]: T1 }, creationTimestamp: new Date(T0) }))?.toISOString()).toBe(
      '2026-07-29T11:00:00.000Z',
    );
    expect(lastActivity(observedPod({ creationTimestamp: new Date(T0) }))?.toISOString()).toBe('2026-07-29T10:00:00.000Z');
  });

  it('falls through an unparseable annotation instead of trusting it', () => {
    const pod = observedPod({ annotations: { [LAST_ACTIVITY_ANNOTATION]: 'garbage', [CREATED_AT_ANNOTATION]: 'also bad' }, creationTimestamp: new Date(T0) });
    expect(lastActivity(pod)?.toISOString()).toBe('2026-07-29T10:00:00.000Z');
  });

  it('accepts a creationTimestamp string from raw watch JSON', () => {
    expect(lastActivity(observedPod({ creationTimestamp: T0 }))?.toISOString()).toBe('2026-07-29T10:00:00.000Z');
  });

  it('is undefined when nothing parses', () => {
    expect(lastActivity(observedPod({ annotations: { [LAST_ACTIVITY_ANNOTATION]: 'x' } }))).toBeUndefined();
    expect(lastActivity(observedPod({ creationTimestamp: new Date(Number.NaN) }))).toBeUndefined();
    expect(lastActivity({})).toBeUndefined();
  });
});

describe(createdAt.name, () => {
  it('ignores last-activity', () => {
    const pod = observedPod({ annotations: { [LAST_ACTIVITY_ANNOTATION]: T2, [CREATED_AT_ANNOTATION]: T1 } });
    expect(createdAt(pod)?.toISOString()).toBe('2026-07-29T11:00:00.000Z');
  });
});

describe(sessionStartedAt.name, () => {
  it('is claimed-at for a claimed pool pod, else created-at (C-CTL-7)', () => {
    expect(sessionStartedAt(observedPod({ annotations: { [CREATED_AT_ANNOTATION]: T0, [CLAIMED_AT_ANNOTATION]: T1 } }))).toEqual(new Date(T1));
    expect(sessionStartedAt(observedPod({ annotations: { [CREATED_AT_ANNOTATION]: T0, [CLAIMED_AT_ANNOTATION]: 'garbage' } }))).toEqual(new Date(T0));
    expect(sessionStartedAt(observedPod({}))).toBeUndefined();
  });
});

describe(podAge.name, () => {
  it('is the time since creation in ms, or undefined', () => {
    expect(podAge(observedPod({ annotations: { [CREATED_AT_ANNOTATION]: T0 } }), new Date(T1))).toBe(3_600_000);
    expect(podAge(observedPod({}), NOW)).toBeUndefined();
  });
});

describe(idleTime.name, () => {
  it('is the time since last activity in ms (Go TestCleanupStale: missing last-activity → created-at)', () => {
    expect(idleTime(observedPod({ annotations: { [LAST_ACTIVITY_ANNOTATION]: T1, [CREATED_AT_ANNOTATION]: T0 } }), new Date(T2))).toBe(3_600_000);
    expect(idleTime(observedPod({ annotations: { [CREATED_AT_ANNOTATION]: T0 } }), new Date(T2))).toBe(7_200_000);
    expect(idleTime(observedPod({}), NOW)).toBeUndefined();
  });
});

describe(oldestFirst.name, () => {
  it('orders by creation time, then name; pods without a time go last', () => {
    const pods = [
      observedPod({ name: 'no-time' }),
      observedPod({ name: 'new', annotations: { [CREATED_AT_ANNOTATION]: T2 } }),
      observedPod({ name: 'b-old', creationTimestamp: new Date(T0) }),
      observedPod({ name: 'a-old', annotations: { [CREATED_AT_ANNOTATION]: T0 } }),
      observedPod({ name: 'mid', creationTimestamp: T1 }),
      observedPod({ name: 'a-no-time' }),
    ];
    expect([...pods].sort(oldestFirst).map((p) => p.metadata?.name)).toEqual(['a-old', 'b-old', 'mid', 'new', 'a-no-time', 'no-time']);
  });
});
