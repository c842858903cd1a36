import { describe, expect, it } from 'vitest';
import { effectiveTimeoutMs } from './exec-service.js';

describe(effectiveTimeoutMs.name, () => {
  it.each([
    [undefined, 60_000],
    [0, 60_000],
    [-5, 60_000],
    [1, 1_000],
    [1.5, 1_500],
    [120, 120_000],
    [300, 300_000],
    [500, 300_000],
  ])('timeout %s → %s ms (C-MCP-3 rules)', (timeout, expected) => {
    expect(effectiveTimeoutMs(timeout, 60, 300)).toBe(expected);
  });
});
