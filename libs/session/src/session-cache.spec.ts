import { describe, expect, it } from 'vitest';
import { FakeClock, handle } from '../test/fakes.js';
import { DEFAULT_CACHE_TTL_MS, SessionCache } from './session-cache.js';

// Go pkg/session/cache_test.go inventory (§17.1), re-expressed for handles.
describe(SessionCache.name, () => {
  const setup = (ttlMs?: number) => {
    const clock = new FakeClock();
    return { clock, cache: new SessionCache(clock, { ttlMs }) };
  };

  it('sets and gets', () => {
    const { cache } = setup(1000);
    const h = handle('s1');
    cache.set('s1', h);
    expect(cache.get('s1')).toBe(h);
  });

  it('misses unknown ids, and expired ids are removed', () => {
    const { cache, clock } = setup(1000);
    expect(cache.get('nope')).toBeUndefined();
    cache.set('s1', handle('s1'));
    clock.advance(1000);
    expect(cache.get('s1')).toBeUndefined();
    expect(cache.size).toBe(0);
  });

  it('does not extend the TTL on hits', () => {
    const { cache, clock } = setup(1000);
    cache.set('s1', handle('s1'));
    clock.advance(600);
    expect(cache.get('s1')).toBeDefined();
    clock.advance(400);
    expect(cache.get('s1')).toBeUndefined();
  });

  it('deletes unconditionally', () => {
    const { cache } = setup();
    cache.set('s1', handle('s1'));
    cache.delete('s1');
    expect(cache.get('s1')).toBeUndefined();
  });

  it('invalidates only when the agent URL matches', () => {
    const { cache } = setup();
    cache.set('s1', handle('s1', { agentUrl: 'http://127.0.0.1:1' }));
    expect(cache.invalidate('s1', 'http://127.0.0.1:2')).toBe(false);
    expect(cache.get('s1')).toBeDefined();
    expect(cache.invalidate('s1', 'http://127.0.0.1:1')).toBe(true);
    expect(cache.get('s1')).toBeUndefined();
  });

  it('evicts expired entries and keeps fresh ones', () => {
    const { cache, clock } = setup(1000);
    cache.set('old1', handle('old1'));
    cache.set('old2', handle('old2'));
    clock.advance(500);
    cache.set('fresh', handle('fresh'));
    clock.advance(600);
    expect(cache.evictExpired()).toBe(2);
    expect(cache.size).toBe(1);
    expect(cache.get('fresh')).toBeDefined();
  });

  it('evicts expired entries on write, so unqueried sessions do not accumulate', () => {
    const { cache, clock } = setup(1000);
    cache.set('a', handle('a'));
    clock.advance(1000);
    cache.set('b', handle('b'));
    expect(cache.size).toBe(1);
  });

  it.each([0, -5, undefined])('defaults the TTL to 30 s for %s', (ttl) => {
    expect(setup(ttl).cache.ttl).toBe(DEFAULT_CACHE_TTL_MS);
  });

  it('overwrites an existing entry with a fresh TTL', () => {
    const { cache, clock } = setup(1000);
    cache.set('s1', handle('s1', { agentUrl: 'http://127.0.0.1:1' }));
    clock.advance(800);
    cache.set('s1', handle('s1', { agentUrl: 'http://127.0.0.1:2' }));
    clock.advance(800);
    expect(cache.get('s1')?.agentUrl).toBe('http://127.0.0.1:2');
  });

  it('caps the number of entries, dropping the oldest write first', () => {
    const clock = new FakeClock();
    const cache = new SessionCache(clock, { maxEntries: 2 });
    cache.set('a', handle('a'));
    cache.set('b', handle('b'));
    cache.set('c', handle('c'));
    expect(cache.size).toBe(2);
    expect(cache.get('a')).toBeUndefined();
    expect(cache.get('c')).toBeDefined();
  });

  it('counts entries', () => {
    const { cache } = setup();
    expect(cache.size).toBe(0);
    cache.set('a', handle('a'));
    cache.set('b', handle('b'));
    expect(cache.size).toBe(2);
    cache.clear();
    expect(cache.size).toBe(0);
  });
});
