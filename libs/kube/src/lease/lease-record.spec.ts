import { describe, expect, it } from 'vitest';
import { leaseBody, leaseRecordOf, sameRecord, type LeaseRecord } from './lease-record.js';

const RECORD: LeaseRecord = {
  holderIdentity: 'ctl-a',
  leaseDurationSeconds: 15,
  acquireTime: new Date('2026-07-29T10:00:00.250Z'),
  renewTime: new Date('2026-07-29T10:00:05.5Z'),
  leaseTransitions: 2,
};

describe(leaseBody.name, () => {
  it('writes six-digit MicroTimes and a resourceVersion precondition (C-CTL-1)', () => {
    const body = leaseBody('cli-mcp-oc-controller', RECORD, '42');
    expect(body.metadata).toEqual({ name: 'cli-mcp-oc-controller', resourceVersion: '42' });
    expect(JSON.parse(JSON.stringify(body)).spec).toEqual({
      holderIdentity: 'ctl-a',
      leaseDurationSeconds: 15,
      leaseTransitions: 2,
      acquireTime: '2026-07-29T10:00:00.250000Z',
      renewTime: '2026-07-29T10:00:05.500000Z',
    });
    expect(leaseBody('x', RECORD).metadata).toEqual({ name: 'x' });
  });
});

describe(leaseRecordOf.name, () => {
  it('reads back what leaseBody wrote, from strings or Dates', () => {
    const wire = JSON.parse(JSON.stringify(leaseBody('x', RECORD)));
    expect(leaseRecordOf(wire)).toEqual(RECORD);
    expect(leaseRecordOf({ spec: { ...wire.spec, renewTime: RECORD.renewTime } })).toEqual(RECORD);
  });

  it('reads a Lease with missing or malformed fields as unheld', () => {
    expect(leaseRecordOf({})).toEqual({ holderIdentity: '', leaseDurationSeconds: 0, acquireTime: undefined, renewTime: undefined, leaseTransitions: 0 });
    expect(leaseRecordOf({ spec: { renewTime: 'yesterday' as never } }).renewTime).toBeUndefined();
  });
});

describe(sameRecord.name, () => {
  it('notices a renewal, a new holder and a new transition count', () => {
    expect(sameRecord(RECORD, { ...RECORD, renewTime: new Date(RECORD.renewTime!) })).toBe(true);
    expect(sameRecord(RECORD, { ...RECORD, renewTime: new Date('2026-07-29T10:00:10Z') })).toBe(false);
    expect(sameRecord(RECORD, { ...RECORD, holderIdentity: 'ctl-b' })).toBe(false);
    expect(sameRecord(RECORD, { ...RECORD, leaseTransitions: 3 })).toBe(false);
  });
});
