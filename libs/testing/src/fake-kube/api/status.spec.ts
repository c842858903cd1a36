import { describe, expect, it } from 'vitest';
import { LEASES, PODS, SECRETS } from './resources.js';
import { fieldErrorBody, Statuses, successStatus } from './status.js';

describe('Statuses', () => {
  it('words NotFound like a real server, with the group for leases', () => {
    expect(Statuses.notFound(PODS, 'sbx-abc').status).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'pods "sbx-abc" not found',
      reason: 'NotFound',
      details: { name: 'sbx-abc', kind: 'pods' },
      code: 404,
    });
    expect(Statuses.notFound(LEASES, 'x').status).toMatchObject({
      message: 'leases.coordination.k8s.io "x" not found',
      details: { name: 'x', group: 'coordination.k8s.io', kind: 'leases' },
    });
  });

  it('words AlreadyExists and Conflict', () => {
    expect(Statuses.alreadyExists(SECRETS, 's').status).toMatchObject({ code: 409, reason: 'AlreadyExists', message: 'secrets "s" already exists' });
    expect(Statuses.conflict(PODS, 'p').status).toMatchObject({
      code: 409,
      reason: 'Conflict',
      message: 'Operation cannot be fulfilled on pods "p": the object has been modified; please apply your changes to the latest version and try again',
      details: { name: 'p', kind: 'pods' },
    });
  });

  it('renders 422 Invalid with causes, aggregating several errors in brackets', () => {
    const one = Statuses.invalid(PODS, '', [{ type: 'Required', field: 'metadata.name', detail: 'name or generateName is required' }]).status;
    expect(one).toMatchObject({
      code: 422,
      reason: 'Invalid',
      message: 'Pod "" is invalid: metadata.name: Required value: name or generateName is required',
      details: { name: '', kind: 'Pod', causes: [{ reason: 'FieldValueRequired', message: 'Required value: name or generateName is required', field: 'metadata.name' }] },
    });
    const two = Statuses.invalid(LEASES, 'l', [
      { type: 'Invalid', field: 'spec.leaseDurationSeconds', value: 0, detail: 'must be greater than 0' },
      { type: 'Required', field: 'spec.x' },
    ]).status;
    expect(two.message).toBe('Lease.coordination.k8s.io "l" is invalid: [spec.leaseDurationSeconds: Invalid value: 0: must be greater than 0, spec.x: Required value]');
    expect(two.details).toMatchObject({ group: 'coordination.k8s.io', kind: 'Lease' });
  });

  it('renders field errors like field.Error', () => {
    expect(fieldErrorBody({ type: 'Invalid', field: 'f', value: 'X', detail: 'bad' })).toBe('Invalid value: "X": bad');
    expect(fieldErrorBody({ type: 'Forbidden', field: 'f', detail: 'no' })).toBe('Forbidden: no');
  });

  it('builds the Success body of a deleted secret', () => {
    expect(successStatus(SECRETS, 's', 'u-1')).toEqual({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', details: { name: 's', kind: 'secrets', uid: 'u-1' } });
  });
});
