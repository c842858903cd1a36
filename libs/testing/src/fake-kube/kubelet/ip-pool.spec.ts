import { describe, expect, it } from 'vitest';
import { LoopbackIpPool, randomLoopbackPrefix } from './ip-pool.js';

describe(LoopbackIpPool.name, () => {
  it('hands out distinct 127.0.0.N addresses round-robin from a random start', () => {
    const pool = new LoopbackIpPool({ first: 2, last: 4 }, () => 0.5);
    expect([pool.allocate(), pool.allocate(), pool.allocate()]).toEqual(['127.0.0.3', '127.0.0.4', '127.0.0.2']);
    expect(() => pool.allocate()).toThrow(/no free loopback address/);
  });

  it('reuses released addresses and skips busy ones', () => {
    const pool = new LoopbackIpPool({ first: 2, last: 3 }, () => 0);
    const a = pool.allocate();
    pool.allocate();
    pool.release(a);
    expect(pool.allocate()).toBe(a);
    pool.release('127.0.0.2');
    pool.release('127.0.0.3');
    expect(pool.allocate(new Set(['127.0.0.2']))).toBe('127.0.0.3');
    expect(pool.size).toBe(1);
  });

  it('rejects a range outside 1..254', () => {
    expect(() => new LoopbackIpPool({ first: 0 })).toThrow();
    expect(() => new LoopbackIpPool({ last: 255 })).toThrow();
  });

  it('gives each simulated cluster a /24 of 127/8 of its own, never the host\'s 127.0.x', () => {
    expect(randomLoopbackPrefix(() => 0)).toBe('127.1.0.');
    expect(randomLoopbackPrefix(() => 0.999999)).toBe('127.254.255.');
    const prefixes = new Set(Array.from({ length: 50 }, () => randomLoopbackPrefix()));
    expect(prefixes.size).toBeGreaterThan(45);
  });
});
