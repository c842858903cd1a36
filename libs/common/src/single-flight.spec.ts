import { deferred } from '@cli-mcp/testing';
import { describe, expect, it } from 'vitest';
import { FlightAbortedError, SingleFlight } from './single-flight.js';

describe(SingleFlight.name, () => {
  it('runs concurrent calls for one key once and shares the result', async () => {
    const flight = new SingleFlight<number>();
    const gate = deferred<number>();
    let runs = 0;
    const work = () => {
      runs++;
      return gate.promise;
    };
    const signal = new AbortController().signal;
    const calls = Array.from({ length: 10 }, () => flight.run('k', signal, work));
    expect(flight.has('k')).toBe(true);
    expect(flight.has('other')).toBe(false);
    gate.resolve(7);
    expect(await Promise.all(calls)).toEqual(Array(10).fill(7));
    expect(runs).toBe(1);
    expect(flight.inFlight).toBe(0);
    expect(flight.has('k')).toBe(false);
  });

  it('runs different keys independently and starts a new flight after one ends', async () => {
    const flight = new SingleFlight<string>();
    const signal = new AbortController().signal;
    expect(await Promise.all([flight.run('a', signal, async () => 'A'), flight.run('b', signal, async () => 'B')])).toEqual(['A', 'B']);
    expect(await flight.run('a', signal, async () => 'A2')).toBe('A2');
  });

  it('shares failures', async () => {
    const flight = new SingleFlight<number>();
    const signal = new AbortController().signal;
    const gate = deferred<number>();
    const calls = [flight.run('k', signal, () => gate.promise), flight.run('k', signal, () => gate.promise)];
    gate.reject(new Error('boom'));
    for (const call of calls) await expect(call).rejects.toThrow('boom');
  });

  it('aborts the shared work only when every waiter gave up', async () => {
    const flight = new SingleFlight<number>();
    const gate = deferred<number>();
    let shared: AbortSignal | undefined;
    const first = new AbortController();
    const second = new AbortController();
    const a = flight.run('k', first.signal, (s) => ((shared = s), gate.promise));
    const b = flight.run('k', second.signal, () => gate.promise);
    first.abort();
    await expect(a).rejects.toBeInstanceOf(FlightAbortedError);
    expect(shared?.aborted).toBe(false);
    second.abort();
    await expect(b).rejects.toBeInstanceOf(FlightAbortedError);
    expect(shared?.aborted).toBe(true);
  });

  it('rejects at once for an already aborted signal', async () => {
    const controller = new AbortController();
    controller.abort();
    await expect(new SingleFlight<number>().run('k', controller.signal, async () => 1)).rejects.toBeInstanceOf(FlightAbortedError);
  });
});
