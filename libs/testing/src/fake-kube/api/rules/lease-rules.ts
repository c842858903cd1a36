import { Statuses, type FieldError } from '../status.js';
import { isJsonObject } from '../types.js';
import type { ResourceRules } from './resource-rules.js';

const LAYOUT = '2006-01-02T15:04:05.000000Z07:00';
const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}/;
const FRACTION = /^\.\d{6}/;
const ZONE = /^(Z|[+-]\d{2}:\d{2})$/;

/**
 * Checks a `metav1.MicroTime` string the way Go's `time.Parse(RFC3339Micro)` does: exactly six fractional digits.
 * Returns the Go error text, or undefined when the value parses.
 */
export function microTimeError(value: string): string | undefined {
  const prefix = `parsing time ${JSON.stringify(value)} as "${LAYOUT}": cannot parse`;
  const head = DATE_TIME.exec(value);
  if (!head) return `${prefix} ${JSON.stringify(value)} as "2006"`;
  const afterSeconds = value.slice(head[0].length);
  if (!FRACTION.test(afterSeconds)) return `${prefix} ${JSON.stringify(afterSeconds)} as ".000000"`;
  const zone = afterSeconds.slice(7);
  if (!ZONE.test(zone)) return `${prefix} ${JSON.stringify(zone)} as "Z07:00"`;
  if (Number.isNaN(Date.parse(value))) return `${prefix} ${JSON.stringify(value)} as "2006"`;
  return undefined;
}

/** Leases (`coordination.k8s.io/v1`): MicroTime fields must carry six fractional digits, or 400. */
export const leaseRules: ResourceRules = {
  decode(body) {
    const spec = body['spec'];
    if (spec === undefined || spec === null) return;
    if (!isJsonObject(spec)) throw Statuses.badRequest('Lease in version "v1" cannot be handled as a Lease: json: cannot unmarshal into Go struct field Lease.spec of type v1.LeaseSpec');
    for (const field of ['acquireTime', 'renewTime'] as const) {
      const value = spec[field];
      if (value === undefined || value === null) continue;
      const error = typeof value === 'string' ? microTimeError(value) : `json: cannot unmarshal ${typeof value} into Go value of type string`;
      if (error) throw Statuses.badRequest(`Lease in version "v1" cannot be handled as a Lease: ${error}`);
    }
    for (const field of ['leaseDurationSeconds', 'leaseTransitions'] as const) {
      const value = spec[field];
      if (value !== undefined && value !== null && !Number.isInteger(value)) {
        throw Statuses.badRequest(
          `Lease in version "v1" cannot be handled as a Lease: json: cannot unmarshal ${typeof value} into Go struct field LeaseSpec.spec.${field} of type int32`,
        );
      }
    }
  },
  validate(lease) {
    const errors: FieldError[] = [];
    const spec = (lease['spec'] ?? {}) as Record<string, unknown>;
    const duration = spec['leaseDurationSeconds'];
    if (typeof duration === 'number' && duration <= 0) {
      errors.push({ type: 'Invalid', field: 'spec.leaseDurationSeconds', value: duration, detail: 'must be greater than 0' });
    }
    const transitions = spec['leaseTransitions'];
    if (typeof transitions === 'number' && transitions < 0) {
      errors.push({ type: 'Invalid', field: 'spec.leaseTransitions', value: transitions, detail: 'must be greater than or equal to 0' });
    }
    return errors;
  },
};
