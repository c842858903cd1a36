import type { V1Lease, V1MicroTime } from '@kubernetes/client-node';
import { formatMicroTime, parseTimestamp } from '@cli-mcp/podspec';

/**
 * The leader-election record a Lease carries (client-go `LeaderElectionRecord`), read leniently: client-node leaves
 * MicroTime fields as strings, a typed client gives `Date`s, and a Lease written by someone else may miss fields.
 */
export interface LeaseRecord {
  /** Empty when nobody holds it (released, C-CTL-1). */
  readonly holderIdentity: string;
  readonly leaseDurationSeconds: number;
  readonly acquireTime?: Date;
  readonly renewTime?: Date;
  readonly leaseTransitions: number;
}

/** The record of `lease` (missing fields: no holder, duration 0, transitions 0). */
export function leaseRecordOf(lease: V1Lease): LeaseRecord {
  const spec = lease.spec ?? {};
  return {
    holderIdentity: typeof spec.holderIdentity === 'string' ? spec.holderIdentity : '',
    leaseDurationSeconds: typeof spec.leaseDurationSeconds === 'number' ? spec.leaseDurationSeconds : 0,
    acquireTime: microTime(spec.acquireTime),
    renewTime: microTime(spec.renewTime),
    leaseTransitions: typeof spec.leaseTransitions === 'number' ? spec.leaseTransitions : 0,
  };
}

/** True when both records say the same thing (client-go compares the raw record to notice a renewal). */
export function sameRecord(a: LeaseRecord, b: LeaseRecord): boolean {
  return (
    a.holderIdentity === b.holderIdentity &&
    a.leaseDurationSeconds === b.leaseDurationSeconds &&
    a.leaseTransitions === b.leaseTransitions &&
    a.acquireTime?.getTime() === b.acquireTime?.getTime() &&
    a.renewTime?.getTime() === b.renewTime?.getTime()
  );
}

/**
 * The Lease object for `record`: times as six-digit MicroTime strings (a real API server refuses fewer digits);
 * `resourceVersion` makes an update conditional (409 when someone wrote it since).
 */
export function leaseBody(name: string, record: LeaseRecord, resourceVersion?: string): V1Lease {
  return {
    apiVersion: 'coordination.k8s.io/v1',
    kind: 'Lease',
    metadata: { name, ...(resourceVersion === undefined ? {} : { resourceVersion }) },
    spec: {
      holderIdentity: record.holderIdentity,
      leaseDurationSeconds: record.leaseDurationSeconds,
      leaseTransitions: record.leaseTransitions,
      ...(record.acquireTime ? { acquireTime: asMicroTime(record.acquireTime) } : {}),
      ...(record.renewTime ? { renewTime: asMicroTime(record.renewTime) } : {}),
    },
  };
}

// The generated type says Date; the serializer sends a string through unchanged (stack-notes C).
function asMicroTime(date: Date): V1MicroTime {
  return formatMicroTime(date) as unknown as V1MicroTime;
}

function microTime(value: unknown): Date | undefined {
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? undefined : value;
  return typeof value === 'string' ? parseTimestamp(value) : undefined;
}
