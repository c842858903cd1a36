import type { V1Pod } from '@kubernetes/client-node';
import { afterEach, describe, expect, it } from 'vitest';
import { waitForPodReady } from './pod-readiness.js';
import { hangingWatch } from './testing/backend-fixture.js';
import { FakeClock, StrictKubeApi, flush, pod } from './testing/strict-kube-api.js';

const MINUTE = 60_000;

/** Issue 11: the watch plus a direct `/health` probe once the pod runs; whichever says "ready" first wins. */
describe(`${waitForPodReady.name} with a direct agent probe`, () => {
  let api: StrictKubeApi;
  let clock: FakeClock;
  const probes: Array<{ pod: V1Pod; signal: AbortSignal }> = [];
  let answers = (_attempt: number): boolean => false;
  const probe = async (candidate: V1Pod, signal: AbortSignal): Promise<boolean> => {
    probes.push({ pod: candidate, signal });
    return answers(probes.length);
  };
  const setup = (): void => {
    api = new StrictKubeApi();
    clock = new FakeClock();
    probes.length = 0;
  };
  /** Lets time pass in 5 ms steps (the probe's pace), settling promises between steps. */
  const run = async (ms: number): Promise<void> => {
    for (let elapsed = 0; elapsed < ms; elapsed += 5) {
      await flush(3);
      clock.advance(5);
    }
    await flush();
  };

  afterEach(() => {
    expect(api.unexpected).toEqual([]);
  });

  it('an agent that answers before the kubelet marks the pod Ready ends the wait; one watch, stopped at the end', async () => {
    setup();
    const pending = pod({ name: 'p', session: 's', ready: false, rv: '7' });
    const running = pod({ name: 'p', session: 's', ready: false, started: true, rv: '8' });
    const watches: AbortSignal[] = [];
    api.on('watchPodUntil', async (name, rv, until, signal) => {
      watches.push(signal);
      // The probe-able state starts the probe but does not end the watch (no second watch request, C-K8S-5).
      expect(until(running)).toBe(false);
      expect(until(pod({ name: 'p', session: 's', ready: false, started: true, rv: '9' }))).toBe(false);
      return hangingWatch(name, rv, until, signal);
    });
    answers = (attempt) => attempt >= 3; // refused twice (not listening yet), then 200
    const waiting = waitForPodReady({ api, clock }, pending, MINUTE, new AbortController().signal, { probe });
    await run(50);
    await expect(waiting).resolves.toBe(running);
    expect(probes.map((p) => p.pod)).toEqual([running, running, running]);
    expect(watches.map((w) => w.aborted)).toEqual([true]);
    expect(clock.pendingTimers).toBe(0);
  });

  it('kubelet Ready first: resolves with the Ready pod and stops probing', async () => {
    setup();
    const running = pod({ name: 'p', ready: false, started: true, rv: '8' });
    const ready = pod({ name: 'p', started: true, rv: '9' });
    let release: (() => void) | undefined;
    api.on('watchPodUntil', () => new Promise((resolve) => (release = () => resolve({ type: 'matched', pod: ready }))));
    answers = () => false;
    const waiting = waitForPodReady({ api, clock }, running, MINUTE, new AbortController().signal, { probe });
    await run(20);
    expect(probes.length).toBeGreaterThan(1);
    release?.();
    await expect(waiting).resolves.toBe(ready);
    const count = probes.length;
    await run(100);
    expect(probes.length).toBe(count);
    expect(clock.pendingTimers).toBe(0);
  });

  it('never probes a pod that does not run yet, and a pod that starts terminating fails the wait and stops the probe', async () => {
    setup();
    const pending = pod({ name: 'p', ready: false, rv: '1' });
    const running = pod({ name: 'p', ready: false, started: true, rv: '2' });
    const terminating = pod({ name: 'p', ready: false, started: true, deleting: true, rv: '3' });
    api.on('watchPodUntil', async (_n, _rv, until) => {
      expect(until(pod({ name: 'p', ready: false, rv: '1' }))).toBe(false);
      expect(probes).toEqual([]);
      expect(until(running)).toBe(false);
      await new Promise((resolve) => setImmediate(resolve));
      clock.advance(10);
      await new Promise((resolve) => setImmediate(resolve));
      expect(until(terminating)).toBe(true);
      return { type: 'matched', pod: terminating };
    });
    answers = () => false;
    const waiting = waitForPodReady({ api, clock }, pending, MINUTE, new AbortController().signal, { probe }).catch((e: unknown) => e);
    await run(30);
    expect(await waiting).toMatchObject({ kind: 'terminating', message: 'pod "p" is being deleted' });
    expect(probes.length).toBeGreaterThan(0);
    expect(probes.every((p) => p.pod === running)).toBe(true);
    const count = probes.length;
    await run(100);
    expect(probes.length).toBe(count);
  });

  it('the deadline bounds the probe too', async () => {
    setup();
    api.on('watchPodUntil', hangingWatch);
    answers = () => false;
    const waiting = waitForPodReady({ api, clock }, pod({ name: 'p', ready: false, started: true }), 1_000, new AbortController().signal, { probe }).catch((e: unknown) => e);
    await run(1_000);
    expect(await waiting).toMatchObject({ kind: 'timeout', message: 'pod "p" not ready within 1s' });
    const count = probes.length;
    await run(600);
    expect(probes.length).toBe(count);
    expect(clock.pendingTimers).toBe(0);
  });
});
