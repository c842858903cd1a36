import { describe, expect, it } from 'vitest';
import { formatMicroTime, formatTimestamp, parseTimestamp } from './timestamp.js';

describe(formatTimestamp.name, () => {
  it('writes RFC 3339 UTC truncated to seconds (Go §3.2)', () => {
    expect(formatTimestamp(new Date('2026-07-29T17:38:22.999Z'))).toBe('2026-07-29T17:38:22Z');
    expect(formatTimestamp(new Date('2026-01-02T03:04:05Z'))).toBe('2026-01-02T03:04:05Z');
  });
});

describe(parseTimestamp.name, () => {
  it.each([
    ['2026-07-29T17:38:22Z', '2026-07-29T17:38:22.000Z'],
    ['2026-07-29T17:38:22.5Z', '2026-07-29T17:38:22.500Z'],
    ['2026-07-29T19:38:22+02:00', '2026-07-29T17:38:22.000Z'],
    ['2026-07-29T17:08:22-00:30', '2026-07-29T17:38:22.000Z'],
    ['2024-02-29T00:00:00Z', '2024-02-29T00:00:00.000Z'],
  ])('parses %j', (text, iso) => {
    expect(parseTimestamp(text)?.toISOString()).toBe(iso);
  });

  it('round-trips what formatTimestamp writes', () => {
    const stamp = formatTimestamp(new Date('2030-12-31T23:59:59.123Z'));
    expect(parseTimestamp(stamp)?.toISOString()).toBe('2030-12-31T23:59:59.000Z');
  });

  it.each([
    '',
    'yesterday',
    '2026-07-29',
    '2026-07-29 17:38:22Z',
    '2026-07-29T17:38:22',
    '2026-02-30T00:00:00Z',
    '2025-02-29T00:00:00Z',
    '2026-13-01T00:00:00Z',
    '2026-07-29T24:00:00Z',
    '2026-07-29T17:60:00Z',
    '2026-07-29T17:38:22+24:00',
    '1785339502',
  ])('rejects %j without throwing', (text) => {
    expect(parseTimestamp(text)).toBeUndefined();
  });
});

describe(formatMicroTime.name, () => {
  it('writes exactly six fractional digits, which parse back to the same instant (C-CTL-1)', () => {
    expect(formatMicroTime(new Date('2026-07-29T17:38:22.123Z'))).toBe('2026-07-29T17:38:22.123000Z');
    expect(formatMicroTime(new Date('2026-07-29T17:38:22Z'))).toBe('2026-07-29T17:38:22.000000Z');
    expect(parseTimestamp(formatMicroTime(new Date('2026-07-29T17:38:22.5Z')))).toEqual(new Date('2026-07-29T17:38:22.5Z'));
  });
});
