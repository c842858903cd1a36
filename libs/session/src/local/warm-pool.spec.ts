import { describe, expect, it } from 'vitest';
import { deferred, FakeClock } from '../../test/fakes.js';
import { flush } from '../../test/local-fakes.js';
import { WarmPool } from './warm-pool.js';

describe(WarmPool.name, () => {
  const setup = (size: number) => {
    const clock = new FakeClock();
    const starts: Array<ReturnType<typeof deferred<string>>> = [];
    const failures: unknown[] = [];
    const pool = new WarmPool<string>(size, clock, {
      start: () => {
        const start = deferred<string>();
        starts.push(start);
        return start.promise;
      },
      onStartFailed: (error) => failures.push(error),
    });
    return { clock, starts, failures, pool };
  };

  it('starts agents up to the size and hands out ready ones, refilling right after a claim', async () => {
    const { starts, pool } = setup(2);
    pool.fill();
    pool.fill();
    expect(starts).toHaveLength(2);
    expect(pool.take()).toBeUndefined();
    starts[0]!.resolve('w0');
    starts[1]!.resolve('w1');
    await flush();
    expect(pool.readyCount).toBe(2);
    expect(pool.take()).toBe('w0');
    expect(starts).toHaveLength(3);
    expect(pool.startingCount).toBe(1);
  });

  it('replaces an agent that died in the pool', async () => {
    const { starts, pool } = setup(1);
    pool.fill();
    starts[0]!.resolve('w0');
    await flush();
    expect(pool.remove('w0')).toBe(true);
    expect(starts).toHaveLength(2);
    expect(pool.remove('w0')).toBe(false);
  });

  it('retries failed starts with exponential backoff', async () => {
    const { clock, starts, failures, pool } = setup(1);
    pool.fill();
    starts[0]!.reject(new Error('boom'));
    await flush();
    expect(failures).toHaveLength(1);
    expect(clock.pending()).toEqual([1000]);
    pool.fill();
    expect(starts).toHaveLength(1);
    clock.advance(1000);
    expect(starts).toHaveLength(2);
    starts[1]!.reject(new Error('boom'));
    await flush();
    expect(clock.pending()).toEqual([2000]);
  });

  it('close stops refilling and returns the ready agents', async () => {
    const { starts, pool } = setup(1);
    pool.fill();
    starts[0]!.resolve('w0');
    await flush();
    expect(pool.close()).toEqual(['w0']);
    pool.fill();
    expect(starts).toHaveLength(1);
  });
});
