import type { CoordinationV1Api, CoreV1Api, V1Pod } from '@kubernetes/client-node';
import { PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import { startFakeCluster, type FakeCluster } from '@cli-mcp/testing';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeWhenReady } from '../../support/prerequisites.js';
import { PythonKubeClient, pythonClientUnavailable } from './python-client.js';
import { widget, WIDGET_CRD, WIDGET_GROUP } from './fixtures/widget-crd.js';
import { apiError, clientsFor } from './support.js';

type Meta = { name?: string; resourceVersion?: string; uid?: string; labels?: Record<string, string>; annotations?: Record<string, string> };
type PyObject = { metadata: Meta; spec?: Record<string, unknown>; status?: Record<string, unknown>; data?: Record<string, string>; type?: string };

/**
 * The same scenarios as kubectl-conformance.test.ts, through Debian's python3-kubernetes (22.x): a client nobody
 * here wrote, with its own spellings (`watch=True`, strategic merge patches for dict bodies, `+00:00` offsets).
 */
// .ci/run installs python3-kubernetes: under CI=true the gate fails on a missing client instead of skipping.
describeWhenReady('fake API server conformance: python3-kubernetes vs client-node', pythonClientUnavailable(), () => {
  let cluster: FakeCluster;
  let py: PythonKubeClient;
  let core: CoreV1Api;
  let coordination: CoordinationV1Api;
  let nsCounter = 0;
  const namespace = (): string => `py-${++nsCounter}`;
  const pod = (name: string, labels: Record<string, string>): V1Pod => ({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, labels },
    spec: { containers: [{ name: 'sandbox', image: 'sandbox:test' }] },
  });
  const summary = (items: Array<{ metadata?: Meta }>): string[] => items.map((p) => `${p.metadata?.name}@${p.metadata?.resourceVersion}/${p.metadata?.uid}`);
  const byPython = (): ReturnType<FakeCluster['requests']['entries']> => cluster.requests.entries({}).filter((r) => r.userAgent?.startsWith('OpenAPI-Generator/'));

  beforeAll(async () => {
    cluster = await startFakeCluster({ kubelet: false });
    ({ core, coordination } = clientsFor(cluster.kubeconfigPath));
    py = new PythonKubeClient(cluster.kubeconfigPath);
  });
  afterAll(async () => {
    await py?.stop();
    await cluster?.stop();
  });

  it('lists with set-based selectors: the same objects and resourceVersions as client-node', async () => {
    const ns = namespace();
    for (const [name, labels] of [['a', { app: 'x', tier: 'web' }], ['b', { app: 'y' }], ['c', { app: 'x', gone: 'yes' }], ['d', { app: 'z' }]] as const) {
      await core.createNamespacedPod({ namespace: ns, body: pod(name, labels) });
    }
    const selector = 'app in (x, y),!gone,tier notin (cache)';
    const viaPython = await py.ok<{ items: PyObject[] }>('listPods', { namespace: ns, labelSelector: selector });
    const viaClient = await core.listNamespacedPod({ namespace: ns, labelSelector: selector });
    expect(summary(viaPython.items)).toEqual(summary(viaClient.items));
    expect(viaPython.items.map((p) => p.metadata.name)).toEqual(['a', 'b']);
  });

  it('creates, reads and patches with its default patch type (strategic merge) like a merge patch on metadata', async () => {
    const ns = namespace();
    const created = await py.ok<PyObject>('createPod', { namespace: ns, body: pod('web', { app: 'web', old: 'yes' }) });
    expect(created.metadata).toMatchObject({ name: 'web', labels: { app: 'web', old: 'yes' } });
    const patched = await py.ok<PyObject>('patchPod', { namespace: ns, name: 'web', body: { metadata: { labels: { tier: 'front', old: null }, annotations: { note: 'hello' } } } });
    expect(patched.metadata.labels).toEqual({ app: 'web', tier: 'front' });
    expect(byPython().filter((r) => r.verb === 'patch').map((r) => r.contentType)).toEqual(['application/strategic-merge-patch+json']);

    const read = await core.readNamespacedPod({ namespace: ns, name: 'web' });
    expect(read.metadata?.labels).toEqual({ app: 'web', tier: 'front' });
    expect(read.metadata?.annotations).toEqual({ note: 'hello' });
    expect(read.metadata?.resourceVersion).toBe(patched.metadata.resourceVersion);
    const viaPython = await py.ok<PyObject>('readPod', { namespace: ns, name: 'web' });
    expect(viaPython.metadata).toMatchObject({ uid: read.metadata?.uid, resourceVersion: read.metadata?.resourceVersion });

    // A list in a strategic merge patch needs per-field merge keys the fake does not implement: refused, not misapplied.
    const refused = await py.call('patchPod', { namespace: ns, name: 'web', body: { metadata: { finalizers: ['example.com/keep'] } } });
    expect(refused).toMatchObject({ ok: false, status: 415, body: { reason: 'UnsupportedMediaType' } });
  });

  it('reports NotFound and AlreadyExists with the same Status bodies as to client-node', async () => {
    const ns = namespace();
    const missing = await py.call('readPod', { namespace: ns, name: 'nope' });
    const missingViaClient = await apiError(core.readNamespacedPod({ namespace: ns, name: 'nope' }));
    expect(missing).toMatchObject({ ok: false, status: 404, body: { reason: 'NotFound', message: 'pods "nope" not found', details: { name: 'nope', kind: 'pods' } } });
    expect(missing.ok ? undefined : missing.body).toEqual(missingViaClient.status);

    await py.ok('createPod', { namespace: ns, body: pod('dup', {}) });
    const again = await py.call('createPod', { namespace: ns, body: pod('dup', {}) });
    const againViaClient = await apiError(core.createNamespacedPod({ namespace: ns, body: pod('dup', {}) }));
    expect(again).toMatchObject({ ok: false, status: 409, body: { reason: 'AlreadyExists', message: 'pods "dup" already exists' } });
    expect(again.ok ? undefined : again.body).toEqual(againViaClient.status);
  });

  it('creates a Secret with string_data folded into data, and deletes pods and Secrets', async () => {
    const ns = namespace();
    await py.ok('createSecret', { namespace: ns, body: { metadata: { name: 'auth' }, stringData: { token: 'abc' } } });
    const secret = await core.readNamespacedSecret({ namespace: ns, name: 'auth' });
    expect(secret).toMatchObject({ data: { token: Buffer.from('abc').toString('base64') }, type: 'Opaque' });
    expect(secret.stringData).toBeUndefined();
    expect((await py.ok<PyObject>('readSecret', { namespace: ns, name: 'auth' })).data).toEqual(secret.data);

    await core.createNamespacedPod({ namespace: ns, body: pod('one', {}) });
    await py.ok('deletePod', { namespace: ns, name: 'one' });
    await py.ok('deleteSecret', { namespace: ns, name: 'auth' });
    expect((await apiError(core.readNamespacedPod({ namespace: ns, name: 'one' }))).code).toBe(404);
    expect((await py.call('readSecret', { namespace: ns, name: 'auth' })).ok).toBe(false);
  });

  it('watches (watch=True) from a resourceVersion and sees a client-node merge patch as MODIFIED', async () => {
    const ns = namespace();
    const created = await core.createNamespacedPod({ namespace: ns, body: pod('watched', { app: 'w' }) });
    const watcher = new PythonKubeClient(cluster.kubeconfigPath);
    try {
      const since = cluster.requests.last()?.seq ?? 0;
      const events = watcher.ok<Array<[string, string, string]>>('watchPods', { namespace: ns, resourceVersion: created.metadata?.resourceVersion, count: 1 });
      const watchRequest = await cluster.server.whenWatching({ resource: 'pods', namespace: ns, since });
      expect(watchRequest.query).toMatchObject({ watch: 'True', resourceVersion: created.metadata?.resourceVersion });
      const patched = await core.patchNamespacedPod(
        { namespace: ns, name: 'watched', body: { metadata: { labels: { step: 'two' } } } },
        setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
      );
      expect(await events).toEqual([['MODIFIED', 'watched', patched.metadata?.resourceVersion]]);
    } finally {
      await watcher.stop();
    }
  });

  it('serves a Lease whose renewTime has six fractional digits (sent with a +00:00 offset)', async () => {
    const ns = namespace();
    const lease = await py.ok<PyObject>('createLease', { namespace: ns, name: 'leader', holder: 'a', renewMicroseconds: 123_456 });
    const sent = cluster.requests.last({ verb: 'create', resource: 'leases', namespace: ns })?.body as { spec?: { renewTime?: string } };
    expect(sent.spec?.renewTime).toBe('2026-01-02T03:04:05.123456+00:00');
    const viaClient = await coordination.readNamespacedLease({ namespace: ns, name: 'leader' });
    expect(viaClient.metadata?.resourceVersion).toBe(lease.metadata.resourceVersion);
    expect(new Date(viaClient.spec?.renewTime as unknown as string).toISOString()).toBe('2026-01-02T03:04:05.123Z');
    expect(await py.ok('readLease', { namespace: ns, name: 'leader' })).toMatchObject({ renewMicroseconds: 123_456, lease: { spec: { holderIdentity: 'a' } } });

    // Python's isoformat() drops a zero fraction; a real server's RFC3339Micro parse rejects that, and so does the fake.
    const whole = await py.call('createLease', { namespace: ns, name: 'whole', holder: 'b', renewMicroseconds: 0 });
    expect(whole).toMatchObject({ ok: false, status: 400, body: { reason: 'BadRequest' } });
    expect(whole.ok ? '' : whole.body.message).toContain('cannot parse');
  });

  it('CustomObjectsApi: create, get, list, merge patch, status, watch and delete of a custom resource, with the 422 of a CEL rule', async () => {
    const ns = namespace();
    const at = { group: WIDGET_GROUP, version: 'v1', plural: 'widgets', namespace: ns };
    if (!cluster.registry.find(WIDGET_GROUP, 'v1', 'widgets')) await py.ok('createCrd', { body: WIDGET_CRD });
    const created = await py.ok<PyObject>('createCustom', { ...at, body: widget('w', { image: 'nginx:1' }) });
    expect(created).toMatchObject({ kind: 'Widget', metadata: { generation: 1 }, spec: { image: 'nginx:1', replicas: 1, size: 'small' } });
    expect((await py.ok<{ items: PyObject[] }>('listCustom', at)).items.map((i) => i.metadata.name)).toEqual(['w']);

    const merged = await py.ok<PyObject>('patchCustom', { ...at, name: 'w', body: { spec: { replicas: 3 } } });
    expect(merged).toMatchObject({ spec: { replicas: 3 }, metadata: { generation: 2 } });
    expect(cluster.requests.last({ verb: 'patch', resource: 'widgets' })?.contentType).toBe('application/merge-patch+json');
    // python3-kubernetes 22 sends every custom-object patch as a merge patch, a list body too (then refused).
    const listBody = await py.call('patchCustom', { ...at, name: 'w', body: [{ op: 'replace', path: '/spec/image', value: 'nginx:2' }] });
    expect(listBody).toMatchObject({ ok: false, status: 400 });
    const patched = await py.ok<PyObject>('patchCustom', { ...at, name: 'w', body: { spec: { image: 'nginx:2' } } });
    expect(patched.spec?.['image']).toBe('nginx:2');

    const watching = py.ok<unknown[][]>('watchCustom', { ...at, resourceVersion: patched.metadata.resourceVersion, count: 1 });
    await cluster.server.whenWatching({ resource: 'widgets', namespace: ns });
    // The script answers one request at a time: the status change comes from another client while it watches.
    const ready = { conditions: [{ type: 'Ready', status: 'True' }] };
    cluster.api.patch(cluster.registry.find(WIDGET_GROUP, 'v1', 'widgets')!, ns, 'w', 'merge', { status: ready }, { subresource: 'status' });
    expect(await watching).toEqual([['MODIFIED', 'w', ready]]);
    const notReady = { conditions: [{ type: 'Ready', status: 'False' }] };
    const viaStatus = await py.ok<PyObject>('patchCustomStatus', { ...at, name: 'w', body: { status: notReady, spec: { replicas: 9 } } });
    expect(viaStatus).toMatchObject({ status: notReady, spec: { replicas: 3 } });

    const invalid = await py.call('createCustom', { ...at, body: widget('two', { image: 'i', targets: [{ type: 'kubernetes' }, { type: 'kubernetes' }] }) });
    expect(invalid).toMatchObject({ ok: false, status: 422, body: { reason: 'Invalid', message: 'Widget.example.com "two" is invalid: spec: Invalid value: "object": at most one kubernetes target' } });
    expect(await py.ok('deleteCustom', { ...at, name: 'w' })).toMatchObject({ kind: 'Status', status: 'Success' });
    expect(await py.call('getCustom', { ...at, name: 'w' })).toMatchObject({ ok: false, status: 404, body: { message: 'widgets.example.com "w" not found' } });
  });
});
