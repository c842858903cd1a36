import { describe, expect, it } from 'vitest';
import { microTimeError } from './lease-rules.js';
import { qosClassOf } from './pod-rules.js';
import { invalidBase64Offset } from './secret-rules.js';

describe(invalidBase64Offset.name, () => {
  it.each([
    ['', -1],
    ['dG9rZW4=', -1],
    ['dG9r', -1],
    ['dG9rZW4xMg==', -1],
    ['dG9r\nZW4=', -1],
    ['not base64!', 3],
    ['dG9rZW4', 7],
    ['dG9=rZW4', 4],
    ['a===', 3],
  ])('%j → %d', (value, offset) => {
    expect(invalidBase64Offset(value)).toBe(offset);
  });
});

describe(microTimeError.name, () => {
  it('accepts exactly six fractional digits with Z or an offset', () => {
    expect(microTimeError('2026-01-01T00:00:00.123456Z')).toBeUndefined();
    expect(microTimeError('2026-01-01T00:00:00.123456+02:00')).toBeUndefined();
  });

  it.each([
    ['2026-01-01T00:00:00.123Z', 'cannot parse ".123Z" as ".000000"'],
    ['2026-01-01T00:00:00Z', 'cannot parse "Z" as ".000000"'],
    ['2026-01-01T00:00:00.1234567Z', 'cannot parse "7Z" as "Z07:00"'],
    ['yesterday', 'cannot parse "yesterday" as "2006"'],
  ])('rejects %j like Go time.Parse', (value, message) => {
    expect(microTimeError(value)).toBe(`parsing time ${JSON.stringify(value)} as "2006-01-02T15:04:05.000000Z07:00": ${message}`);
  });
});

describe(qosClassOf.name, () => {
  it('classifies pods', () => {
    expect(qosClassOf({ containers: [{ name: 'c' }] })).toBe('BestEffort');
    expect(qosClassOf({ containers: [{ resources: { requests: { cpu: '100m' } } }] })).toBe('Burstable');
    const full = { cpu: '500m', memory: '512Mi' };
    expect(qosClassOf({ containers: [{ resources: { requests: full, limits: full } }] })).toBe('Guaranteed');
  });
});
