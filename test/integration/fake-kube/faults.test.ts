import { ApiException, PatchStrategy, setHeaderOptions, Watch, type CoreV1Api, type KubeConfig } from '@kubernetes/client-node';
import { startFakeCluster, type FakeCluster } from '@cli-mcp/testing';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { apiError, clientsFor, rawRequest } from './support.js';

describe('fault injection and request log (observed by client-node)', () => {
  let cluster: FakeCluster;
  let kc: KubeConfig;
  let core: CoreV1Api;
  let n = 0;
  const ns = (): string => `f-${++n}`;
  const pod = (name: string): { metadata: { name: string }; spec: { containers: { name: string; image: string }[] } } => ({
    metadata: { name },
    spec: { containers: [{ name: 'c', image: 'i:1' }] },
  });

  beforeAll(async () => {
    cluster = await startFakeCluster({ kubelet: false });
    ({ kc, core } = clientsFor(cluster.kubeconfigPath));
  });
  afterEach(() => cluster.faults.clear());
  afterAll(async () => cluster?.stop());

  /** Opens a watch and resolves `done` with the error client-node reports when the stream ends. */
  async function openWatch(namespace: string): Promise<{ done: Promise<unknown> }> {
    let finish: (err: unknown) => void = () => undefined;
    const done = new Promise<unknown>((r) => (finish = r));
    await new Watch(kc).watch(`/api/v1/namespaces/${namespace}/pods`, {}, () => undefined, (err) => finish(err ?? null));
    return { done };
  }

  it('500 twice, then OK', async () => {
    const namespace = ns();
    await core.createNamespacedPod({ namespace, body: pod('p') });
    const rule = cluster.faults.add({ method: 'GET', pathPattern: /\/pods\/p$/, status: 500, times: 2 });
    const first = await apiError(core.readNamespacedPod({ namespace, name: 'p' }));
    expect(first).toMatchObject({ code: 500, status: { reason: 'InternalError', message: 'Internal error occurred: injected fault' } });
    expect((await apiError(core.readNamespacedPod({ namespace, name: 'p' }))).code).toBe(500);
    expect((await core.readNamespacedPod({ namespace, name: 'p' })).metadata?.name).toBe('p');
    expect(rule.hits).toBe(2);
    expect(cluster.requests.entries({ verb: 'get', namespace }).map((r) => [r.status, r.faulted])).toEqual([
      [500, true],
      [500, true],
      [200, false],
    ]);
  });

  it('429 with Retry-After', async () => {
    cluster.faults.add({ pathPattern: /\/pods$/, status: 429, retryAfterSeconds: 3, times: 1 });
    const throttled = await apiError(core.listNamespacedPod({ namespace: ns() }));
    expect(throttled).toMatchObject({
      code: 429,
      headers: { 'retry-after': '3' },
      status: { reason: 'TooManyRequests', message: 'Too many requests, please try again later.', details: { retryAfterSeconds: 3 } },
    });
  });

  it('answers with the rule\'s extra headers: a 302 with a Location', async () => {
    const found = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', reason: 'Found', message: 'moved', code: 302 } as const;
    cluster.faults.add({ pathPattern: /\/pods$/, status: found, headers: { Location: 'https://elsewhere.test/stolen' }, times: 1 });
    // A raw request: client-node's fetch would follow the redirect.
    const answer = await rawRequest(`${cluster.url}/api/v1/namespaces/${ns()}/pods`, cluster.caPem);
    expect(answer).toMatchObject({ status: 302, headers: { location: 'https://elsewhere.test/stolen' }, body: found });
  });

  it('holds a request until the test lets it go, while other requests are served', async () => {
    const namespace = ns();
    let arrived!: () => void;
    const arrival = new Promise<void>((resolve) => (arrived = resolve));
    let release!: () => void;
    const go = new Promise<void>((resolve) => (release = resolve));
    cluster.faults.add({
      method: 'POST',
      pathPattern: /\/pods$/,
      times: 1,
      hold: () => {
        arrived();
        return go;
      },
    });
    const creating = core.createNamespacedPod({ namespace, body: pod('held') });
    await arrival;
    // Not created yet: the held request has not been handled; other requests go through meanwhile.
    expect((await core.listNamespacedPod({ namespace })).items).toEqual([]);
    release();
    expect((await creating).metadata?.name).toBe('held');
    expect((await core.listNamespacedPod({ namespace })).items.map((p) => p.metadata?.name)).toEqual(['held']);
  });

  it('adds latency', async () => {
    cluster.faults.add({ pathPattern: /\/pods$/, delayMs: 200, times: 1 });
    const started = performance.now();
    await core.listNamespacedPod({ namespace: ns() });
    expect(performance.now() - started).toBeGreaterThanOrEqual(190);
  });

  it('drops the connection (a transport error, not an ApiException)', async () => {
    cluster.faults.add({ pathPattern: /\/pods$/, dropConnection: true, times: 1 });
    const error = await core.listNamespacedPod({ namespace: ns() }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Error);
    expect(error).not.toBeInstanceOf(ApiException);
    expect(String((error as Error).message)).toMatch(/socket hang up|ECONNRESET/);
  });

  it('cuts watches: all open ones cleanly, abruptly, or one after a delay via a rule', async () => {
    const namespace = ns();
    const clean = await openWatch(namespace);
    await cluster.server.whenWatching({ namespace });
    expect(cluster.server.cutWatches()).toBe(1);
    expect(await clean.done).toBeNull();

    const since = cluster.requests.last()?.seq ?? 0;
    const abrupt = await openWatch(namespace);
    await cluster.server.whenWatching({ namespace, since });
    cluster.server.cutWatches({ abrupt: true });
    expect(await abrupt.done).toBeInstanceOf(Error);

    cluster.faults.add({ pathPattern: /\/pods$/, watch: true, cutWatchAfterMs: 100, times: 1 });
    const cut = await openWatch(namespace);
    expect(await cut.done).toBeNull();
    expect(cluster.server.openWatches).toBe(0);
  });

  it('answers with a full custom Status', async () => {
    cluster.faults.add({
      method: 'PATCH',
      pathPattern: /\/pods\//,
      status: { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'etcdserver: request timed out', reason: 'Timeout', code: 504 },
    });
    const namespace = ns();
    await core.createNamespacedPod({ namespace, body: pod('p') });
    const timedOut = await apiError(core.patchNamespacedPod({ namespace, name: 'p', body: [] }));
    expect(timedOut).toMatchObject({ code: 504, status: { reason: 'Timeout', message: 'etcdserver: request timed out' } });
  });

  it('counts requests by verb and resource, with method, path, query, content type and parsed body', async () => {
    const namespace = ns();
    cluster.requests.clear();
    await core.createNamespacedSecret({ namespace, body: { metadata: { name: 's' }, stringData: { token: 't' } } });
    await core.createNamespacedPod({ namespace, body: pod('p') });
    await core.listNamespacedPod({ namespace, labelSelector: 'a=b', limit: 1 });
    await core.patchNamespacedPod({ namespace, name: 'p', body: { metadata: { labels: { x: 'y' } } } }, setHeaderOptions('Content-Type', PatchStrategy.MergePatch));
    await core.deleteNamespacedPod({ namespace, name: 'p' });
    await core.deleteNamespacedSecret({ namespace, name: 's' });
    expect(cluster.requests.countByVerbAndResource()).toEqual({
      'create secrets': 1,
      'create pods': 1,
      'list pods': 1,
      'patch pods': 1,
      'delete pods': 1,
      'delete secrets': 1,
    });
    expect(cluster.requests.count({ verb: ['create', 'patch', 'delete'] })).toBe(5);
    expect(cluster.requests.last({ verb: 'list' })).toMatchObject({
      method: 'GET',
      path: `/api/v1/namespaces/${namespace}/pods`,
      query: { labelSelector: 'a=b', limit: '1' },
      status: 200,
    });
    expect(cluster.requests.last({ verb: 'patch' })).toMatchObject({
      method: 'PATCH',
      contentType: 'application/merge-patch+json',
      body: { metadata: { labels: { x: 'y' } } },
      name: 'p',
      namespace,
    });
    expect(cluster.requests.last({ verb: 'create', resource: 'secrets' })?.body).toMatchObject({ stringData: { token: 't' } });
  });
});
