import { describe, expect, it } from 'vitest';
import { RunningCalls } from './running-calls.js';

describe(RunningCalls.name, () => {
  it('aborts the call of the given session and call name only', () => {
    const sut = new RunningCalls();
    const a = sut.register('s-1', 'mcp-7');
    const b = sut.register('s-2', 'mcp-7');
    const c = sut.register('s-1', 'mcp-c0123456789abcdef-7');
    expect(sut.abort('s-1', 'mcp-7', 'client cancelled')).toBe('aborted');
    expect(a.signal.aborted).toBe(true);
    expect(a.signal.reason).toBe('client cancelled');
    expect(b.signal.aborted).toBe(false);
    expect(c.signal.aborted).toBe(false);
  });

  it('says when the call does not run in this process (another replica may run it)', () => {
    const sut = new RunningCalls();
    expect(sut.abort('s-1', 'mcp-1', 'x')).toBe('absent');
    const call = sut.register('s-1', 'mcp-1');
    call.release();
    expect(sut.abort('s-1', 'mcp-1', 'x')).toBe('absent');
  });

  it('a name two running calls share names neither; once one ends it names the other; release is idempotent', () => {
    const sut = new RunningCalls();
    const first = sut.register('s', 'mcp-1');
    const second = sut.register('s', 'mcp-1');
    expect(sut.size).toBe(2);
    expect(sut.abort('s', 'mcp-1', 'x')).toBe('ambiguous');
    expect([first.signal.aborted, second.signal.aborted]).toEqual([false, false]);
    first.release();
    first.release();
    expect(sut.size).toBe(1);
    expect(sut.abort('s', 'mcp-1', 'x')).toBe('aborted');
    expect(second.signal.aborted).toBe(true);
    expect(first.signal.aborted).toBe(false);
  });

  it('aborts everything at the end of a shutdown grace', () => {
    const sut = new RunningCalls();
    const calls = [sut.register('a', 'mcp-1'), sut.register('b', 'mcp-2')];
    expect(sut.abortAll('shutdown')).toBe(2);
    expect(calls.every((call) => call.signal.aborted)).toBe(true);
  });

  it('resolves whenIdle once the last call is released', async () => {
    const sut = new RunningCalls();
    await sut.whenIdle();
    const a = sut.register('a', 'mcp-1');
    const b = sut.register('b', 'mcp-1');
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

  // Issue 11: the call's one signal also follows the request's (a dropped connection), with no AbortSignal.any.
  it('aborts a call when the request signal it was registered with aborts, with that reason', () => {
    const sut = new RunningCalls();
    const request = new AbortController();
    const call = sut.register('s', 'mcp-1', request.signal);
    expect(call.signal.aborted).toBe(false);
    request.abort('client gone');
    expect(call.signal.aborted).toBe(true);
    expect(call.signal.reason).toBe('client gone');
    const late = sut.register('s', 'mcp-2', request.signal);
    expect(late.signal.aborted).toBe(true);
  });

  it('stops following the request signal once released', () => {
    const sut = new RunningCalls();
    const request = new AbortController();
    const call = sut.register('s', 'mcp-1', request.signal);
    call.release();
    request.abort();
    expect(call.signal.aborted).toBe(false);
  });
});
