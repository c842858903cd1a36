import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import {
  ADD,
  makeInformer,
  PatchStrategy,
  setHeaderOptions,
  Watch,
  type CoordinationV1Api,
  type CoreV1Api,
  type KubeConfig,
  type V1Lease,
  type V1Pod,
} from '@kubernetes/client-node';
import { FakeKubeServer, formatMicroTime, PODS, startFakeCluster, writeKubeconfig, type FakeCluster, type KubeObject } from '@cli-mcp/testing';
import { afterAll, afterEach, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { apiError, clientsFor } from './support.js';

const merge = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);

interface SeenEvent {
  type: string;
  name: string;
  rv: string;
  code?: number;
}

/** Starts a client-node watch and collects its events; `done` resolves when the stream ends. */
async function watchCollect(kc: KubeConfig, path: string, query: Record<string, string | number | boolean | undefined>): Promise<{ events: SeenEvent[]; done: Promise<unknown>; abort: () => void; next: (n: number) => Promise<SeenEvent[]> }> {
  const events: SeenEvent[] = [];
  const waiters: { n: number; resolve: () => void }[] = [];
  let finish: (err: unknown) => void = () => undefined;
  const done = new Promise<unknown>((resolveDone) => (finish = resolveDone));
  const controller = await new Watch(kc).watch(
    path,
    query,
    (type, object: { metadata?: { name?: string; resourceVersion?: string }; code?: number }) => {
      events.push({ type, name: object.metadata?.name ?? '', rv: object.metadata?.resourceVersion ?? '', code: object.code });
      for (const w of waiters.filter((w) => events.length >= w.n)) w.resolve();
    },
    (err) => finish(err ?? null),
  );
  return {
    events,
    done,
    abort: () => controller.abort(),
    next: (n) =>
      events.length >= n
        ? Promise.resolve(events)
        : new Promise((resolveNext, reject) => {
            const timer = setTimeout(() => reject(new Error(`saw ${JSON.stringify(events)}, wanted ${n} events`)), 10_000);
            waiters.push({ n, resolve: () => (clearTimeout(timer), resolveNext(events)) });
          }),
  };
}

const pod = (name: string, labels: Record<string, string> = {}): V1Pod => ({
  metadata: { name, labels },
  spec: { containers: [{ name: 'sandbox', image: 'sandbox:test' }] },
});

describe('fake API server with @kubernetes/client-node 1.4.0', () => {
  let cluster: FakeCluster;
  let kc: KubeConfig;
  let core: CoreV1Api;
  let coordination: CoordinationV1Api;
  let n = 0;
  const ns = (): string => `cn-${++n}`;

  beforeAll(async () => {
    cluster = await startFakeCluster({ kubelet: false, bookmarkIntervalMs: 50 });
    ({ kc, core, coordination } = clientsFor(cluster.kubeconfigPath));
  });
  afterEach(() => {
    cluster.faults.clear();
    cluster.store.eventWindow = 10_000;
  });
  afterAll(async () => cluster?.stop());

  it('merge patch via setHeaderOptions, JSON patch by default', async () => {
    const namespace = ns();
    await core.createNamespacedPod({ namespace, body: pod('p', { a: '1' }) });
    const merged = await core.patchNamespacedPod({ namespace, name: 'p', body: { metadata: { labels: { b: '2', a: null } } } }, merge);
    expect(merged.metadata?.labels).toEqual({ b: '2' });
    const jsonPatched = await core.patchNamespacedPod({ namespace, name: 'p', body: [{ op: 'add', path: '/metadata/labels/c', value: '3' }] });
    expect(jsonPatched.metadata?.labels).toEqual({ b: '2', c: '3' });
    expect(cluster.requests.entries({ verb: 'patch', namespace }).map((r) => r.contentType)).toEqual(['application/merge-patch+json', 'application/json-patch+json']);
  });

  it('strategic merge patch of metadata merges like a merge patch; lists and directives get 415 naming the field', async () => {
    const namespace = ns();
    await core.createNamespacedPod({ namespace, body: pod('p', { a: '1' }) });
    const strategic = setHeaderOptions('Content-Type', PatchStrategy.StrategicMergePatch);
    const patched = await core.patchNamespacedPod({ namespace, name: 'p', body: { metadata: { labels: { b: '2', a: null }, annotations: { n: 'x' } } } }, strategic);
    expect(patched.metadata?.labels).toEqual({ b: '2' });
    expect(patched.metadata?.annotations).toEqual({ n: 'x' });
    const list = await apiError(core.patchNamespacedPod({ namespace, name: 'p', body: { metadata: { finalizers: ['x/y'] } } }, strategic));
    expect(list).toMatchObject({ code: 415, status: { reason: 'UnsupportedMediaType' } });
    expect(list.status?.message).toContain('metadata.finalizers');
    const directive = await apiError(core.patchNamespacedPod({ namespace, name: 'p', body: { metadata: { labels: { $patch: 'replace' } } } }, strategic));
    expect(directive.status?.message).toContain('metadata.labels.$patch');
    // A refused patch changed nothing.
    expect((await core.readNamespacedPod({ namespace, name: 'p' })).metadata?.resourceVersion).toBe(patched.metadata?.resourceVersion);
    const stale = await apiError(core.patchNamespacedPod({ namespace, name: 'p', body: { metadata: { resourceVersion: '1', labels: { c: '3' } } } }, strategic));
    expect(stale).toMatchObject({ code: 409, status: { reason: 'Conflict' } });
  });

  it('resourceVersion in a merge patch body is a precondition: of two concurrent claimers exactly one wins', async () => {
    const namespace = ns();
    await core.createNamespacedPod({ namespace, body: pod('warm', { component: 'sandbox' }) });
    const [listed] = (await core.listNamespacedPod({ namespace, labelSelector: 'component=sandbox,!session' })).items;
    const claim = (session: string): Promise<V1Pod> =>
      core.patchNamespacedPod({ namespace, name: 'warm', body: { metadata: { labels: { session }, resourceVersion: listed?.metadata?.resourceVersion } } }, merge);
    const results = await Promise.allSettled([claim('s-1'), claim('s-2')]);
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    const loser = results.find((r) => r.status === 'rejected') as PromiseRejectedResult;
    const error = await apiError(Promise.reject(loser.reason));
    expect(error).toMatchObject({
      code: 409,
      status: { reason: 'Conflict', message: 'Operation cannot be fulfilled on pods "warm": the object has been modified; please apply your changes to the latest version and try again' },
    });
    // Rollback without a precondition (null removes the label).
    const rolledBack = await core.patchNamespacedPod({ namespace, name: 'warm', body: { metadata: { labels: { session: null } } } }, merge);
    expect(rolledBack.metadata?.labels).toEqual({ component: 'sandbox' });
  });

  it('AlreadyExists on create, NotFound on read, Success Status on secret delete', async () => {
    const namespace = ns();
    await core.createNamespacedSecret({ namespace, body: { metadata: { name: 'auth' }, stringData: { token: 't' } } });
    const exists = await apiError(core.createNamespacedSecret({ namespace, body: { metadata: { name: 'auth' } } }));
    expect(exists).toMatchObject({ code: 409, status: { reason: 'AlreadyExists', message: 'secrets "auth" already exists' } });
    const status = await core.deleteNamespacedSecret({ namespace, name: 'auth' });
    expect(status).toMatchObject({ status: 'Success', details: { name: 'auth', kind: 'secrets' } });
    expect(await apiError(core.readNamespacedSecret({ namespace, name: 'auth' }))).toMatchObject({ code: 404, status: { reason: 'NotFound' } });
  });

  it('Lease create/replace with six-digit MicroTime; a Date (three digits) is rejected with 400', async () => {
    const namespace = ns();
    const renewTime = formatMicroTime(new Date());
    const lease: V1Lease = { metadata: { name: 'leader' }, spec: { holderIdentity: 'a', leaseDurationSeconds: 15, renewTime: renewTime as unknown as Date } };
    const created = await coordination.createNamespacedLease({ namespace, body: lease });
    expect(created.spec?.renewTime as unknown).toBe(renewTime);
    const later = formatMicroTime(new Date(Date.now() + 1000));
    const replaced = await coordination.replaceNamespacedLease({
      namespace,
      name: 'leader',
      body: { ...created, spec: { ...created.spec, holderIdentity: 'b', acquireTime: later as unknown as Date, renewTime: later as unknown as Date, leaseTransitions: 1 } },
    });
    expect(replaced.spec).toMatchObject({ holderIdentity: 'b', leaseTransitions: 1 });
    const stale = await apiError(coordination.replaceNamespacedLease({ namespace, name: 'leader', body: created }));
    expect(stale).toMatchObject({ code: 409, status: { reason: 'Conflict' } });
    const threeDigits = await apiError(
      coordination.replaceNamespacedLease({ namespace, name: 'leader', body: { ...replaced, spec: { ...replaced.spec, renewTime: new Date() } } }),
    );
    expect(threeDigits.code).toBe(400);
    expect(threeDigits.status?.message).toMatch(/cannot be handled as a Lease: parsing time ".*\.\d{3}Z" as "2006-01-02T15:04:05.000000Z07:00"/);
    expect(await apiError(coordination.readNamespacedLease({ namespace, name: 'nope' }))).toMatchObject({
      status: { message: 'leases.coordination.k8s.io "nope" not found', details: { group: 'coordination.k8s.io', kind: 'leases' } },
    });
  });

  it('watches from a resourceVersion: replays later events in order, and DELETED carries a new resourceVersion', async () => {
    const namespace = ns();
    const created = await core.createNamespacedPod({ namespace, body: pod('w', { app: 'a' }) });
    const first = await core.patchNamespacedPod({ namespace, name: 'w', body: { metadata: { labels: { step: '1' } } } }, merge);
    const watch = await watchCollect(kc, `/api/v1/namespaces/${namespace}/pods`, { resourceVersion: created.metadata?.resourceVersion });
    await watch.next(1);
    const deleted = await core.deleteNamespacedPod({ namespace, name: 'w' });
    await watch.next(2);
    watch.abort();
    expect(watch.events.map((e) => `${e.type} ${e.rv}`)).toEqual([`MODIFIED ${first.metadata?.resourceVersion}`, `DELETED ${deleted.metadata?.resourceVersion}`]);
    expect(Number(deleted.metadata?.resourceVersion)).toBeGreaterThan(Number(first.metadata?.resourceVersion));
  });

  it('sends selector transitions: leaving the selector is DELETED, entering is ADDED', async () => {
    const namespace = ns();
    await core.createNamespacedPod({ namespace, body: pod('t', { app: 'a' }) });
    const watch = await watchCollect(kc, `/api/v1/namespaces/${namespace}/pods`, { labelSelector: 'app=a' });
    await watch.next(1);
    await core.patchNamespacedPod({ namespace, name: 't', body: { metadata: { labels: { app: 'b' } } } }, merge);
    await core.patchNamespacedPod({ namespace, name: 't', body: { metadata: { labels: { other: 'x' } } } }, merge);
    await core.patchNamespacedPod({ namespace, name: 't', body: { metadata: { labels: { app: 'a' } } } }, merge);
    await watch.next(3);
    watch.abort();
    expect(watch.events.map((e) => e.type)).toEqual(['ADDED', 'DELETED', 'ADDED']);
  });

  it('closes a watch after timeoutSeconds (done is called without error)', async () => {
    const watch = await watchCollect(kc, `/api/v1/namespaces/${ns()}/pods`, { timeoutSeconds: 1 });
    expect(await watch.done).toBeNull();
  });

  it('sends BOOKMARKs when allowWatchBookmarks=true', async () => {
    const namespace = ns();
    const watch = await watchCollect(kc, `/api/v1/namespaces/${namespace}/pods`, { allowWatchBookmarks: true, labelSelector: 'never=1' });
    await cluster.server.whenWatching({ namespace });
    await core.createNamespacedPod({ namespace, body: pod('b') });
    const [bookmark] = await watch.next(1);
    watch.abort();
    expect(bookmark).toMatchObject({ type: 'BOOKMARK', rv: String(cluster.store.resourceVersion) });
  });

  it('answers 410 Expired for a resourceVersion older than the window; ListWatch relists', async () => {
    const namespace = ns();
    const old = await core.createNamespacedPod({ namespace, body: pod('old') });
    cluster.store.eventWindow = 2;
    for (const name of ['x1', 'x2', 'x3']) await core.createNamespacedPod({ namespace, body: pod(name) });
    const expired = await watchCollect(kc, `/api/v1/namespaces/${namespace}/pods`, { resourceVersion: old.metadata?.resourceVersion });
    expect(await expired.done).toBeNull();
    expect(expired.events).toEqual([{ type: 'ERROR', name: '', rv: '', code: 410 }]);

    // Informer: its watch is cut, and before it can reconnect a pod is created and the log compacted → the
    // reconnect from its last resourceVersion gets 410 → ListWatch relists and sees the new pod.
    cluster.store.eventWindow = 10_000;
    const informer = makeInformer(kc, `/api/v1/namespaces/${namespace}/pods`, () => core.listNamespacedPod({ namespace }));
    const added = new Set<string>();
    let onAdd: () => void = () => undefined;
    informer.on(ADD, (p: V1Pod) => {
      added.add(p.metadata?.name ?? '');
      onAdd();
    });
    const waitForAdd = (name: string): Promise<void> =>
      added.has(name) ? Promise.resolve() : new Promise((resolveAdd) => (onAdd = () => added.has(name) && resolveAdd()));
    await informer.start();
    await cluster.server.whenWatching({ namespace });
    expect([...added].sort()).toEqual(['old', 'x1', 'x2', 'x3']);
    const listsBefore = cluster.requests.count({ verb: 'list', resource: 'pods', namespace });
    const watchesBefore = cluster.requests.count({ verb: 'watch', resource: 'pods', namespace });
    // All three in one tick: the reconnect cannot arrive in between.
    cluster.server.cutWatches();
    cluster.api.create(PODS, namespace, pod('late') as KubeObject);
    cluster.server.compactWatchLog();
    await waitForAdd('late');
    await informer.stop();
    expect(cluster.requests.count({ verb: 'list', resource: 'pods', namespace })).toBe(listsBefore + 1);
    expect(cluster.requests.count({ verb: 'watch', resource: 'pods', namespace })).toBeGreaterThanOrEqual(watchesBefore + 1);
  });

  it('pages lists with limit/continue at a constant list resourceVersion', async () => {
    const namespace = ns();
    for (const name of ['a', 'b', 'c']) await core.createNamespacedPod({ namespace, body: pod(name) });
    const first = await core.listNamespacedPod({ namespace, limit: 2 });
    expect(first.items.map((p) => p.metadata?.name)).toEqual(['a', 'b']);
    expect(first.metadata?.remainingItemCount).toBe(1);
    const second = await core.listNamespacedPod({ namespace, limit: 2, _continue: first.metadata?._continue });
    expect(second.items.map((p) => p.metadata?.name)).toEqual(['c']);
    expect(second.metadata?._continue).toBeUndefined();
    expect(second.metadata?.resourceVersion).toBe(first.metadata?.resourceVersion);
  });

  it('rejects bad selectors with 400 BadRequest', async () => {
    const namespace = ns();
    expect(await apiError(core.listNamespacedPod({ namespace, labelSelector: 'app in (a' }))).toMatchObject({ code: 400, status: { reason: 'BadRequest' } });
    expect(await apiError(core.listNamespacedPod({ namespace, fieldSelector: 'spec.foo=bar' }))).toMatchObject({
      code: 400,
      status: { reason: 'BadRequest', message: 'field label not supported: spec.foo' },
    });
    const ok = await core.listNamespacedPod({ namespace, fieldSelector: 'status.phase!=Failed,metadata.name=x' });
    expect(ok.items).toEqual([]);
  });

  it('removes on stop() the kubeconfigs it wrote into temp dirs of its own, and only those', async () => {
    const server = new FakeKubeServer();
    await server.start();
    const own = await server.writeKubeconfig();
    const given = join(await mkdtemp(join(tmpdir(), 'fake-kube-given-')), 'kubeconfig');
    await server.writeKubeconfig(given);
    await server.stop();
    expect(existsSync(dirname(own))).toBe(false);
    expect(existsSync(given)).toBe(true);
    await rm(dirname(given), { recursive: true, force: true });
  });

  it('answers 401 for a wrong bearer token when auth is enabled', async () => {
    const server = new FakeKubeServer({ token: 'right' });
    await server.start();
    try {
      const good = clientsFor(await server.writeKubeconfig());
      expect((await good.core.listNamespacedPod({ namespace: 'default' })).items).toEqual([]);
      const wrong = await writeKubeconfig({ server: server.url, token: 'wrong' });
      onTestFinished(() => rm(dirname(wrong), { recursive: true, force: true }));
      const denied = await apiError(clientsFor(wrong).core.listNamespacedPod({ namespace: 'default' }));
      expect(denied.code).toBe(401);
      expect(server.requests.last()).toMatchObject({ status: 401 });
    } finally {
      await server.stop();
    }
  });
});
