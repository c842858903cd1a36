import { describe, expect, it } from 'vitest';
import { agentUrlOf, goDuration } from './format.js';

describe('goDuration', () => {
  it('formats like Go time.Duration', () => {
    expect(goDuration(60_000)).toBe('1m0s');
    expect(goDuration(90_000)).toBe('1m30s');
    expect(goDuration(5_000)).toBe('5s');
    expect(goDuration(1_500)).toBe('1.5s');
    expect(goDuration(250)).toBe('250ms');
    expect(goDuration(3_600_000)).toBe('1h0m0s');
    expect(goDuration(0)).toBe('0s');
  });
});

describe('agentUrlOf', () => {
  it('joins host and port, bracketing IPv6 (Go §10)', () => {
    expect(agentUrlOf('10.0.0.1', 8090)).toBe('http://10.0.0.1:8090');
    expect(agentUrlOf('2001:db8::1', 8090)).toBe('http://[2001:db8::1]:8090');
  });
});
