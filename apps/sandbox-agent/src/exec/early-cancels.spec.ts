import { describe, expect, it } from 'vitest';
import { EARLY_CANCEL_WINDOW_MS, EarlyCancels } from './early-cancels.js';

const clock = () => {
  const c = { t: 1_000_000, now: () => c.t };
  return c;
};

describe(EarlyCancels.name, () => {
  it('a waiting cancel is spent by the first arrival of its id', () => {
    const early = new EarlyCancels();
    expect(early.wait('a')).toBe(true);
    expect(early.arrive('b')).toBe(false);
    expect(early.arrive('a')).toBe(true);
    expect(early.arrive('a')).toBe(false);
  });

  it(`expires after its window (${EARLY_CANCEL_WINDOW_MS} ms by default)`, () => {
    const c = clock();
    const early = new EarlyCancels(5_000, c.now);
    early.wait('a');
    early.wait('b');
    c.t += 5_000;
    expect(early.arrive('a')).toBe(true);
    c.t += 1;
    expect(early.arrive('b')).toBe(false);
  });

  it('does not wait for an id that already arrived (remembers the last 256 ids)', () => {
    const early = new EarlyCancels();
    early.arrive('old');
    expect(early.wait('old')).toBe(false);
    for (let i = 0; i < 256; i++) early.arrive(`id-${i}`);
    expect(early.wait('id-0')).toBe(false);
    // 'old' was the oldest of 257: forgotten, so a cancel of it waits again.
    expect(early.wait('old')).toBe(true);
  });

  it('keeps at most 64 waiting cancels, dropping the oldest', () => {
    const early = new EarlyCancels();
    for (let i = 0; i < 65; i++) early.wait(`w-${i}`);
    expect(early.arrive('w-0')).toBe(false);
    expect(early.arrive('w-1')).toBe(true);
    expect(early.arrive('w-64')).toBe(true);
  });

  it('a repeated cancel of the same id restarts its window', () => {
    const c = clock();
    const early = new EarlyCancels(5_000, c.now);
    early.wait('a');
    c.t += 4_000;
    early.wait('a');
    c.t += 4_000;
    expect(early.arrive('a')).toBe(true);
  });
});
