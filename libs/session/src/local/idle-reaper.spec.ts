import { describe, expect, it } from 'vitest';
import { FakeClock } from '../../test/fakes.js';
import { IdleReaper } from './idle-reaper.js';

describe(IdleReaper.name, () => {
  const setup = () => {
    const clock = new FakeClock();
    const reaped: string[] = [];
    return { clock, reaped, reaper: new IdleReaper(clock, 1000, (id) => reaped.push(id)) };
  };

  it('schedules one timer at the soonest expiry, not a fixed tick', () => {
    const { clock, reaper } = setup();
    reaper.track('a');
    clock.advance(300);
    reaper.track('b');
    expect(clock.pending()).toEqual([700]);
  });

  it('reaps each session when it has been idle for the timeout', () => {
    const { clock, reaper, reaped } = setup();
    reaper.track('a');
    clock.advance(300);
    reaper.track('b');
    clock.advance(699);
    expect(reaped).toEqual([]);
    clock.advance(1);
    expect(reaped).toEqual(['a']);
    expect(clock.pending()).toEqual([300]);
    clock.advance(300);
    expect(reaped).toEqual(['a', 'b']);
    expect(clock.pending()).toEqual([]);
  });

  it('touch postpones the expiry; the early timer re-arms', () => {
    const { clock, reaper, reaped } = setup();
    reaper.track('a');
    clock.advance(800);
    reaper.touch('a');
    clock.advance(200);
    expect(reaped).toEqual([]);
    expect(clock.pending()).toEqual([800]);
    clock.advance(800);
    expect(reaped).toEqual(['a']);
  });

  it('never reaps a session with a command in flight; idle time starts when it ends', () => {
    const { clock, reaper, reaped } = setup();
    reaper.track('a');
    const end = reaper.begin('a');
    expect(clock.pending()).toEqual([]);
    clock.advance(5000);
    expect(reaped).toEqual([]);
    end();
    end();
    expect(clock.pending()).toEqual([1000]);
    clock.advance(1000);
    expect(reaped).toEqual(['a']);
  });

  it('forgets sessions and stops', () => {
    const { clock, reaper, reaped } = setup();
    reaper.track('a');
    reaper.forget('a');
    reaper.track('b');
    reaper.stop();
    clock.advance(10_000);
    expect(reaped).toEqual([]);
    expect(reaper.has('a')).toBe(false);
  });
});
