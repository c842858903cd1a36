import type { V1Pod } from '@kubernetes/client-node';
import { afterEach, describe, expect, it } from 'vitest';
import { type PodWatchEnd, KubeError } from '@cli-mcp/kube';
import { PodWaitError, waitForPodDeletion, waitForPodReady } from './pod-readiness.js';
import { FakeClock, StrictKubeApi, flush, kubeErrors, pod } from './testing/strict-kube-api.js';

const MINUTE = 60_000;

/** A watch that only ends when its signal aborts (as the real adapter does). */
function hangingWatch(_name: string, _rv: string | undefined, _until: (p: V1Pod) => boolean, signal: AbortSignal): Promise<PodWatchEnd> {
  return new Promise((_, reject) => signal.addEventListener('abort', () => reject(new KubeError('request aborted', undefined, undefined)), { once: true }));
}

describe(waitForPodReady.name, () => {
  let api: StrictKubeApi;
  let clock: FakeClock;

  const setup = (): void => {
    api = new StrictKubeApi();
    clock = new FakeClock();
  };

  afterEach(() => {
    expect(api.unexpected).toEqual([]);
  });

  it('returns a serving pod at once, without any API call', async () => {
    setup();
    const ready = pod({ name: 'p', session: 's' });
    await expect(waitForPodReady({ api, clock }, ready, MINUTE, new AbortController().signal)).resolves.toBe(ready);
    expect(api.calls).toEqual([]);
    expect(clock.pendingTimers).toBe(0);
  });

  it('watches the pod from its resourceVersion until it is Ready (no GET polling, C-K8S-5)', async () => {
    setup();
    const pending = pod({ name: 'p', session: 's', ready: false, rv: '41' });
    const ready = pod({ name: 'p', session: 's', rv: '43' });
    api.on('watchPodUntil', async (name, rv, until) => {
      expect([name, rv]).toEqual(['p', '41']);
      expect(until(pod({ name: 'p', ready: false }))).toBe(false);
      expect(until(ready)).toBe(true);
      return { type: 'matched', pod: ready };
    });
    await expect(waitForPodReady({ api, clock }, pending, MINUTE, new AbortController().signal)).resolves.toBe(ready);
    expect(api.sequence).toEqual(['watchPodUntil']);
    expect(clock.pendingTimers).toBe(0);
  });

  it('fails at once when the pod is deleted, finishes, or starts terminating', async () => {
    setup();
    const pending = pod({ name: 'p', ready: false });
    api.on('watchPodUntil', async () => ({ type: 'deleted', pod: pending }));
    await expect(waitForPodReady({ api, clock }, pending, MINUTE, new AbortController().signal)).rejects.toMatchObject({ kind: 'deleted', message: 'pod "p" was deleted' });

    api.on('watchPodUntil', async (_n, _rv, until) => {
      const failed = pod({ name: 'p', phase: 'Failed', ready: false });
      expect(until(failed)).toBe(true);
      return { type: 'matched', pod: failed };
    });
    await expect(waitForPodReady({ api, clock }, pending, MINUTE, new AbortController().signal)).rejects.toMatchObject({ kind: 'failed', message: 'pod "p" finished with phase Failed' });

    await expect(waitForPodReady({ api, clock }, pod({ name: 'p', ready: false, deleting: true }), MINUTE, new AbortController().signal)).rejects.toMatchObject({ kind: 'terminating' });
  });

  it('re-reads the pod and watches again when the stream closes or expires (410)', async () => {
    setup();
    const pending = pod({ name: 'p', ready: false, rv: '5' });
    const ends: PodWatchEnd[] = [{ type: 'closed', resourceVersion: '6' }, { type: 'expired' }, { type: 'matched', pod: pod({ name: 'p', rv: '30' }) }];
    const versions: Array<string | undefined> = [];
    api.on('watchPodUntil', async (_n, rv) => {
      versions.push(rv);
      clock.advance(2_000); // a long-lived watch: no back-off before the re-read
      return ends.shift() as PodWatchEnd;
    });
    let reads = 0;
    api.on('getPod', async () => pod({ name: 'p', ready: false, rv: String(10 + ++reads) }));
    const ready = await waitForPodReady({ api, clock }, pending, MINUTE, new AbortController().signal);
    expect(ready.metadata?.resourceVersion).toBe('30');
    expect(api.sequence).toEqual(['watchPodUntil', 'getPod', 'watchPodUntil', 'getPod', 'watchPodUntil']);
    expect(versions).toEqual(['5', '11', '12']);
  });

  it('paces re-watches when watches end at once (failing API), instead of spinning', async () => {
    setup();
    const pending = pod({ name: 'p', ready: false });
    let watches = 0;
    api.on('watchPodUntil', async () => {
      watches++;
      if (watches === 1) throw kubeErrors.internal();
      if (watches === 2) return { type: 'closed' };
      return { type: 'matched', pod: pod({ name: 'p' }) };
    });
    api.on('getPod', async () => pending);
    const waiting = waitForPodReady({ api, clock }, pending, MINUTE, new AbortController().signal);
    await flush();
    expect(watches).toBe(1);
    expect(api.callsOf('getPod')).toHaveLength(0);
    clock.advance(100);
    await flush();
    expect(watches).toBe(2);
    clock.advance(150);
    await flush();
    expect(watches).toBe(2); // the second back-off is longer (200 ms)
    clock.advance(50);
    await expect(waiting).resolves.toMatchObject({ metadata: { name: 'p' } });
  });

  it('times out with the Go message when the pod never becomes Ready', async () => {
    setup();
    api.on('watchPodUntil', hangingWatch);
    const waiting = waitForPodReady({ api, clock }, pod({ name: 'p', ready: false }), MINUTE, new AbortController().signal);
    await flush();
    clock.advance(MINUTE);
    const error = await waiting.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PodWaitError);
    expect(error).toMatchObject({ kind: 'timeout', message: 'pod "p" not ready within 1m0s' });
  });

  it('rejects with the abort (not a PodWaitError) when the caller gives up, and clears its deadline', async () => {
    setup();
    api.on('watchPodUntil', hangingWatch);
    const caller = new AbortController();
    const waiting = waitForPodReady({ api, clock }, pod({ name: 'p', ready: false }), MINUTE, caller.signal);
    await flush();
    caller.abort();
    const error = await waiting.catch((e: unknown) => e);
    expect(error).not.toBeInstanceOf(PodWaitError);
    expect(clock.pendingTimers).toBe(0);
  });

  it('retries transient GET failures, and fails on others with the Go text', async () => {
    setup();
    const pending = pod({ name: 'p', ready: false });
    api.on('watchPodUntil', async () => {
      clock.advance(5_000);
      return { type: 'closed' };
    });
    let gets = 0;
    api.on('getPod', async () => {
      gets++;
      if (gets === 1) throw kubeErrors.refused();
      if (gets === 2) throw new KubeError('Too many requests', 429, 'TooManyRequests');
      throw new KubeError('pods "p" is forbidden: nope', 403, 'Forbidden');
    });
    const waiting = waitForPodReady({ api, clock }, pending, MINUTE, new AbortController().signal).catch((e: unknown) => e);
    for (let i = 0; i < 5; i++) {
      await flush();
      clock.advance(500);
    }
    expect(await waiting).toMatchObject({ kind: 'api', message: 'get pod "p": pods "p" is forbidden: nope' });
    expect(gets).toBe(3);
  });

  it('treats NotFound on re-read as deleted', async () => {
    setup();
    api.on('watchPodUntil', async () => {
      clock.advance(5_000);
      return { type: 'expired' };
    });
    api.on('getPod', async () => {
      throw kubeErrors.notFound();
    });
    await expect(waitForPodReady({ api, clock }, pod({ name: 'p', ready: false }), MINUTE, new AbortController().signal)).rejects.toMatchObject({ kind: 'deleted' });
  });

  it('fails as disowned when the pod loses the session label (a sibling rolled its claim back)', async () => {
    setup();
    const claimed = pod({ name: 'p', session: 's', ready: false });
    api.on('watchPodUntil', async (_n, _rv, until) => {
      const unlabelled = pod({ name: 'p', ready: false });
      expect(until(unlabelled)).toBe(true);
      return { type: 'matched', pod: unlabelled };
    });
    const stillOwned = (p: V1Pod): boolean => p.metadata?.labels?.['cli-mcp.redhat.com/session-id'] === 's';
    await expect(waitForPodReady({ api, clock }, claimed, MINUTE, new AbortController().signal, { stillOwned })).rejects.toMatchObject({ kind: 'disowned' });
  });
});

describe(waitForPodDeletion.name, () => {
  it('resolves on DELETED or NotFound, and times out while the pod stays', async () => {
    const api = new StrictKubeApi();
    const clock = new FakeClock();
    const terminating = pod({ name: 'p', deleting: true });
    api.on('watchPodUntil', async (_n, _rv, until) => {
      expect(until(terminating)).toBe(false);
      return { type: 'deleted', pod: terminating };
    });
    await expect(waitForPodDeletion({ api, clock }, terminating, MINUTE, new AbortController().signal)).resolves.toBeUndefined();

    api.on('watchPodUntil', async () => {
      clock.advance(5_000);
      return { type: 'closed' };
    });
    api.on('getPod', async () => {
      throw kubeErrors.notFound();
    });
    await expect(waitForPodDeletion({ api, clock }, terminating, MINUTE, new AbortController().signal)).resolves.toBeUndefined();

    api.on('watchPodUntil', hangingWatch);
    const waiting = waitForPodDeletion({ api, clock }, terminating, 30_000, new AbortController().signal);
    await flush();
    clock.advance(30_000);
    await expect(waiting).rejects.toMatchObject({ kind: 'timeout', message: 'pod "p" still terminating after 30s' });
    expect(api.unexpected).toEqual([]);
  });
});
