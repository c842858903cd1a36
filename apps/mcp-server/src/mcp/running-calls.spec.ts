import { describe, expect, it } from 'vitest';
import { RunningCalls } from './running-calls.js';

describe(RunningCalls.name, () => {
  it('aborts the call of the given session and request id only', () => {
    const sut = new RunningCalls();
    const a = sut.register('s-1', 7);
    const b = sut.register('s-2', 7);
    const c = sut.register('s-1', '7');
    expect(sut.abort('s-1', 7, 'client cancelled')).toBe(true);
    expect(a.signal.aborted).toBe(true);
    expect(a.signal.reason).toBe('client cancelled');
    expect(b.signal.aborted).toBe(false);
    expect(c.signal.aborted).toBe(false);
  });

  it('says when the call does not run in this process (another replica may run it)', () => {
    const sut = new RunningCalls();
    expect(sut.abort('s-1', 1, 'x')).toBe(false);
    const call = sut.register('s-1', 1);
    call.release();
    expect(sut.abort('s-1', 1, 'x')).toBe(false);
  });

  it('keeps calls that share a key apart, and release is idempotent', () => {
    const sut = new RunningCalls();
    const first = sut.register('s', 1);
    const second = sut.register('s', 1);
    expect(sut.size).toBe(2);
    first.release();
    first.release();
    expect(sut.size).toBe(1);
    expect(sut.abort('s', 1, 'x')).toBe(true);
    expect(second.signal.aborted).toBe(true);
    expect(first.signal.aborted).toBe(false);
  });

  it('aborts everything at the end of a shutdown grace', () => {
    const sut = new RunningCalls();
    const calls = [sut.register('a', 1), sut.register('b', 2)];
    expect(sut.abortAll('shutdown')).toBe(2);
    expect(calls.every((call) => call.signal.aborted)).toBe(true);
  });

  it('resolves whenIdle once the last call is released', async () => {
    const sut = new RunningCalls();
    await sut.whenIdle();
    const a = sut.register('a', 1);
    const b = sut.register('b', 1);
    let idle = false;
    const waiting = sut.whenIdle().then(() => {
      idle = true;
    });
    a.release();
    await Promise.resolve();
    expect(idle).toBe(false);
    b.release();
    await waiting;
    expect(idle).toBe(true);
  });
});
