import { describe, expect, it } from 'vitest';
import { formatDuration, parseDuration } from './duration.js';

describe(parseDuration.name, () => {
  it.each([
    ['0', 0],
    ['90s', 90_000],
    ['30m', 1_800_000],
    ['1h30m', 5_400_000],
    ['300ms', 300],
    ['1.5h', 5_400_000],
    ['.5s', 500],
    ['1.s', 1000],
    ['-1.5h', -5_400_000],
    ['+2s', 2000],
    ['1h2m3s4ms', 3_723_004],
    ['1000us', 1],
    ['1000\u00b5s', 1],
    ['1000000ns', 1],
  ])('parses %s', (text, ms) => {
    expect(parseDuration(text)).toEqual({ ok: true, ms });
  });

  it.each([
    ['', 'invalid duration ""'],
    ['abc', 'invalid duration "abc"'],
    ['60', 'missing unit in duration "60"'],
    ['5d', 'unknown unit "d" in duration "5d"'],
    ['1h 30m', 'unknown unit "h " in duration "1h 30m"'],
    ['-', 'invalid duration "-"'],
    ['s', 'invalid duration "s"'],
  ])('rejects %j with Go wording', (text, error) => {
    expect(parseDuration(text)).toEqual({ ok: false, error });
  });
});

describe(formatDuration.name, () => {
  it.each([
    [0, '0s'],
    [250, '250ms'],
    [60_000, '1m'],
    [90_000, '1m30s'],
    [5_400_000, '1h30m'],
    [310_000, '5m10s'],
    [-2000, '-2s'],
  ])('formats %d as %s', (ms, text) => {
    expect(formatDuration(ms)).toBe(text);
  });

  it('round-trips through parseDuration', () => {
    for (const ms of [1, 999, 1000, 61_500, 3_600_000, 3_723_004]) {
      expect(parseDuration(formatDuration(ms))).toEqual({ ok: true, ms });
    }
  });
});
