import { describe, expect, it } from 'vitest';
import { clampTimeout } from './timeout.js';

describe(clampTimeout.name, () => {
  const limits = { defaultSeconds: 60, maxSeconds: 300 };

  // Go TestClampTimeout, case for case.
  it.each([
    [undefined, 60],
    [null, 60],
    [0, 60],
    [-5, 60],
    [120, 120],
    [300, 300],
    [500, 300],
    [1, 1],
  ])('%s → %s', (requested, expected) => {
    expect(clampTimeout(requested, limits)).toBe(expected);
  });

  it('follows the configured default and maximum', () => {
    expect(clampTimeout(undefined, { defaultSeconds: 30, maxSeconds: 90 })).toBe(30);
    expect(clampTimeout(1e12, { defaultSeconds: 30, maxSeconds: 90 })).toBe(90);
  });
});
