import { CLAIMED_AT_ANNOTATION, formatTimestamp } from '@cli-mcp/podspec';
import { describe, expect, it } from 'vitest';
import { claim, podConfig, poolPod, sessionPod, WALL_START } from '../../test/fixtures.js';
import { planGc } from './gc-plan.js';

const MIN = 60_000;
const NOW = new Date(WALL_START + 24 * 60 * MIN);
const ago = (ms: number): Date => new Date(NOW.getTime() - ms);
const plan = (pods: Parameters<typeof planGc>[0]['pods'], maxSessionAgeMs?: number) =>
  planGc({ pods, now: NOW, idleTimeoutMs: 30 * MIN, maxSessionAgeMs });
const ids = (result: ReturnType<typeof planGc>): string[] => result.expired.map((s) => `${s.sessionId}:${s.reason}`).sort();

describe(planGc.name, () => {
  it('expires exactly the sessions idle longer than --idle-timeout and schedules the soonest remaining expiry', () => {
    const result = plan([
      sessionPod('idle-40', { createdAt: ago(90 * MIN), lastActivity: ago(40 * MIN) }),
      sessionPod('idle-31', { createdAt: ago(90 * MIN), lastActivity: ago(31 * MIN) }),
      sessionPod('idle-29', { createdAt: ago(90 * MIN), lastActivity: ago(29 * MIN) }),
      sessionPod('idle-10', { createdAt: ago(90 * MIN), lastActivity: ago(10 * MIN) }),
    ]);
    expect(ids(result)).toEqual(['idle-31:idle', 'idle-40:idle']);
    expect(result.nextCheckMs).toBe(MIN + 1);
    expect(result.expired.find((s) => s.sessionId === 'idle-40')?.seconds).toBe(2400);
  });

  it('is strict at the boundary and falls back to created-at without last-activity (Go)', () => {
    expect(ids(plan([sessionPod('exact', { createdAt: ago(60 * MIN), lastActivity: ago(30 * MIN) })]))).toEqual([]);
    const noActivity = sessionPod('no-stamp', { createdAt: ago(31 * MIN) });
    delete noActivity.metadata!.annotations!['cli-mcp.redhat.com/last-activity'];
    expect(ids(plan([noActivity]))).toEqual(['no-stamp:idle']);
  });

  it('keeps a freshly claimed old pool pod: the claim stamped last-activity, and its session starts at the claim', () => {
    const pod = poolPod('cli-mcp-oc-pool-00aa11bb22', podConfig(), ago(5 * 60 * MIN));
    claim(pod, 'just-claimed', ago(1000));
    const result = plan([pod], 60 * MIN);
    expect(result.expired).toEqual([]);
    expect(result.unstampedClaims.map((c) => [c.pod.metadata?.name, c.startedAt])).toEqual([['cli-mcp-oc-pool-00aa11bb22', new Date(formatTimestamp(ago(1000)))]]);
    expect(plan([pod]).unstampedClaims).toEqual([]); // no --max-session-age: nothing to stamp
  });

  it('applies --max-session-age (off by default) from created-at, or claimed-at for a claimed pool pod (C-CTL-7)', () => {
    const busy = sessionPod('busy-but-old', { createdAt: ago(61 * MIN), lastActivity: ago(1000) });
    expect(ids(plan([busy]))).toEqual([]);
    expect(ids(plan([busy], 60 * MIN))).toEqual(['busy-but-old:max_age']);
    const claimed = poolPod('cli-mcp-oc-pool-00aa11bb22', podConfig(), ago(5 * 60 * MIN));
    claim(claimed, 'claimed-50m-ago', ago(1000));
    claimed.metadata!.annotations![CLAIMED_AT_ANNOTATION] = formatTimestamp(ago(50 * MIN));
    const result = plan([claimed], 60 * MIN);
    expect(result.expired).toEqual([]);
    expect(result.nextCheckMs).toBe(10 * MIN + 1);
  });

  it('judges a session by its newest pod, and leaves terminating sessions and unassigned pods alone', () => {
    const older = sessionPod('two-pods', { createdAt: ago(90 * MIN), lastActivity: ago(50 * MIN) });
    const newer = sessionPod('two-pods', { createdAt: ago(90 * MIN), lastActivity: ago(5 * MIN) });
    newer.metadata!.name = 'second';
    const leaving = sessionPod('leaving', { createdAt: ago(90 * MIN), lastActivity: ago(50 * MIN) });
    leaving.metadata!.deletionTimestamp = ago(1000);
    const pool = poolPod('cli-mcp-oc-pool-0000000001', podConfig(), ago(90 * MIN));
    const result = plan([older, newer, leaving, pool]);
    expect(result.expired).toEqual([]);
    expect(result.nextCheckMs).toBe(25 * MIN + 1);
  });
});
