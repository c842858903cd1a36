import { describe, expect, it } from 'vitest';
import { CLOCK_SKEW_TOLERANCE_MS, controllerLeaseStatus, describeControllerStatus } from './controller-lease-status.js';
import { leaseBody } from './lease-record.js';

const RENEWED = new Date('2026-07-29T10:00:00Z');
const held = leaseBody('cli-mcp-oc-controller', { holderIdentity: 'ctl-a', leaseDurationSeconds: 15, renewTime: RENEWED, leaseTransitions: 0 });
const at = (ms: number): Date => new Date(RENEWED.getTime() + ms);

describe(controllerLeaseStatus.name, () => {
  it('is running while the holder renews within the lease duration (+ skew tolerance)', () => {
    expect(controllerLeaseStatus(held, at(4_000))).toEqual({ state: 'running', holder: 'ctl-a', renewedSecondsAgo: 4 });
    expect(controllerLeaseStatus(held, at(15_000 + CLOCK_SKEW_TOLERANCE_MS)).state).toBe('running');
    expect(controllerLeaseStatus(held, at(-3_000))).toEqual({ state: 'running', holder: 'ctl-a', renewedSecondsAgo: 0 });
  });

  it('is stale when the holder stopped renewing, released without a holder, absent without a Lease', () => {
    expect(controllerLeaseStatus(held, at(15_001 + CLOCK_SKEW_TOLERANCE_MS))).toEqual({ state: 'stale', holder: 'ctl-a', renewedSecondsAgo: 20 });
    const released = leaseBody('x', { holderIdentity: '', leaseDurationSeconds: 1, renewTime: RENEWED, leaseTransitions: 1 });
    expect(controllerLeaseStatus(released, at(0))).toEqual({ state: 'released' });
    expect(controllerLeaseStatus(undefined, at(0))).toEqual({ state: 'absent' });
    expect(controllerLeaseStatus(leaseBody('x', { holderIdentity: 'ctl-a', leaseDurationSeconds: 15, leaseTransitions: 0 }), at(0))).toEqual({
      state: 'stale', holder: 'ctl-a', renewedSecondsAgo: undefined,
    });
  });

  it('says "no controller running" for every state but running', () => {
    expect(describeControllerStatus({ state: 'running', holder: 'ctl-a', renewedSecondsAgo: 3 })).toBe('controller ctl-a holds the lease (renewed 3s ago)');
    for (const status of [{ state: 'released' }, { state: 'absent' }, { state: 'stale', holder: 'ctl-a', renewedSecondsAgo: 99 }] as const) {
      expect(describeControllerStatus(status)).toMatch(/^no controller running: /);
    }
  });
});
