import { FakeClock } from '@cli-mcp/testing';
import { describe, expect, it } from 'vitest';
import { ShortfallTracker } from './shortfall-tracker.js';

describe(ShortfallTracker.name, () => {
  it('reports a shortfall only after it lasted longer than the grace, even without further events (C-CTL-8)', () => {
    const clock = new FakeClock();
    const changes: boolean[] = [];
    const sut = new ShortfallTracker(300_000, clock, (short) => changes.push(short));
    sut.update(3, 3);
    expect(sut.health()).toEqual({ desired: 3, ready: 3, shortfall: false });
    sut.update(3, 2); // a claim: the refill is on its way
    clock.advance(120_000);
    sut.update(3, 1);
    expect(sut.health()).toEqual({ desired: 3, ready: 1, shortSeconds: 120, shortfall: false });
    clock.advance(180_001); // no event: the timer flips it
    expect(changes).toEqual([true]);
    expect(sut.health()).toMatchObject({ shortfall: true, shortSeconds: 300 });
    sut.update(3, 3);
    expect(changes).toEqual([true, false]);
    expect(sut.health()).toEqual({ desired: 3, ready: 3, shortfall: false });
  });

  it('forgets a dip that ends within the grace', () => {
    const clock = new FakeClock();
    const changes: boolean[] = [];
    const sut = new ShortfallTracker(300_000, clock, (short) => changes.push(short));
    sut.update(2, 1);
    clock.advance(60_000);
    sut.update(2, 2);
    clock.advance(600_000);
    expect(changes).toEqual([]);
    expect(sut.shortfall).toBe(false);
  });
});
