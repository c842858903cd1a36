/**
 * The client-node adapter of the KubeApi port against the fake API server over real HTTP (stack-notes C):
 * merge-patch content type, Status reasons → KubeError, resourceVersion precondition, watch outcomes, abort,
 * and the request counter.
 */
import { KubeConfig, type V1Pod } from '@kubernetes/client-node';
import { buildAuthSecret, buildWarmPod } from '@cli-mcp/podspec';
import { PODS, startFakeCluster, type FakeCluster } from '@cli-mcp/testing';
import { Registry } from 'prom-client';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { KUBE_REQUESTS_METRIC, KubeError } from '@cli-mcp/kube';
import { ClientNodeKubeApi, loadKubeConfig } from '@cli-mcp/kube/client-node';
import { NAMESPACE, podConfig } from './support/kube-stack.js';

describe(ClientNodeKubeApi.name, () => {
  let cluster: FakeCluster;
  let registry: Registry;
  let api: ClientNodeKubeApi;
  const cfg = podConfig();
  const signal = (): AbortSignal => new AbortController().signal;

  beforeAll(async () => {
    cluster = await startFakeCluster({ namespace: NAMESPACE, kubelet: false });
  });
  afterAll(async () => {
    await cluster?.stop();
  });
  beforeEach(() => {
    registry = new Registry();
    api = new ClientNodeKubeApi({ kubeConfig: loadKubeConfig(cluster.kubeconfigPath), namespace: NAMESPACE, registry, watchTimeoutSeconds: 30 });
    cluster.faults.clear();
    cluster.requests.clear();
  });

  const warm = (name: string): V1Pod => buildWarmPod(cfg, name, new Date());

  it('creates, lists by selector, gets and deletes pods in its namespace only', async () => {
    const created = await api.createPod(warm('adapter-a'), signal());
    expect(created.metadata?.resourceVersion).toBeTruthy();
    const listed = await api.listPods({ labelSelector: 'cli-mcp.redhat.com/instance=oc,!cli-mcp.redhat.com/session-id' }, signal());
    expect(listed.items.map((p) => p.metadata?.name)).toContain('adapter-a');
    expect((await api.getPod('adapter-a', signal())).metadata?.uid).toBe(created.metadata?.uid);
    await api.deletePod('adapter-a', signal());
    expect(cluster.requests.entries().every((r) => r.namespace === NAMESPACE)).toBe(true);
  });

  it('sends merge patches as application/merge-patch+json; a stale resourceVersion is a Conflict', async () => {
    const created = await api.createPod(warm('adapter-b'), signal());
    const rv = created.metadata?.resourceVersion;
    const patched = await api.mergePatchPod('adapter-b', { metadata: { resourceVersion: rv, labels: { 'cli-mcp.redhat.com/session-id': 's1' } } }, signal());
    expect(patched.metadata?.labels?.['cli-mcp.redhat.com/session-id']).toBe('s1');
    expect(cluster.requests.last({ verb: 'patch' })?.contentType).toBe('application/merge-patch+json');
    const stale = await api.mergePatchPod('adapter-b', { metadata: { resourceVersion: rv, labels: { 'cli-mcp.redhat.com/session-id': 's2' } } }, signal()).catch((e: unknown) => e);
    expect(stale).toBeInstanceOf(KubeError);
    expect(stale).toMatchObject({ status: 409, reason: 'Conflict' });
    const removed = await api.mergePatchPod('adapter-b', { metadata: { labels: { 'cli-mcp.redhat.com/session-id': null } } }, signal());
    expect(removed.metadata?.labels?.['cli-mcp.redhat.com/session-id']).toBeUndefined();
  });

  it('maps AlreadyExists and NotFound from the Status body', async () => {
    const secret = buildAuthSecret(cfg, 'adapter-s', 'a'.repeat(64));
    await api.createSecret(secret, signal());
    await expect(api.createSecret(secret, signal())).rejects.toMatchObject({ status: 409, reason: 'AlreadyExists' });
    await api.deleteSecret(secret.metadata?.name as string, signal());
    const missing = await api.deleteSecret(secret.metadata?.name as string, signal()).catch((e: unknown) => e);
    expect(missing).toMatchObject({ status: 404, reason: 'NotFound', message: `secrets "${secret.metadata?.name}" not found` });
    await expect(api.getPod('nope', signal())).rejects.toMatchObject({ status: 404, reason: 'NotFound' });
  });

  it('counts every request in cli_mcp_kube_requests_total{verb,resource,code}', async () => {
    await api.listPods({ limit: 1 }, signal());
    await api.getPod('nope', signal()).catch(() => undefined);
    const text = await registry.getSingleMetricAsString(KUBE_REQUESTS_METRIC);
    expect(text).toContain('cli_mcp_kube_requests_total{verb="list",resource="pods",code="200"} 1');
    expect(text).toContain('cli_mcp_kube_requests_total{verb="get",resource="pods",code="404"} 1');
  });

  it('watches one pod until the predicate holds, from a resourceVersion', async () => {
    const created = await api.createPod(warm('adapter-w'), signal());
    const watching = api.watchPodUntil('adapter-w', created.metadata?.resourceVersion, (p) => p.metadata?.labels?.['x'] === 'y', signal());
    await cluster.server.whenWatching({ resource: 'pods' });
    cluster.api.patch(PODS, NAMESPACE, 'adapter-w', 'merge', { metadata: { labels: { x: 'y' } } });
    const end = await watching;
    expect(end.type).toBe('matched');
    const watch = cluster.requests.last({ verb: 'watch' });
    expect(watch?.query).toMatchObject({ fieldSelector: 'metadata.name=adapter-w', resourceVersion: created.metadata?.resourceVersion, watch: 'true' });
    expect(await registry.getSingleMetricAsString(KUBE_REQUESTS_METRIC)).toContain('verb="watch",resource="pods",code="200"} 1');
  });

  it('reports DELETED, a closed stream and 410 Expired', async () => {
    const created = await api.createPod(warm('adapter-d'), signal());
    const rv = created.metadata?.resourceVersion;
    let watching = api.watchPodUntil('adapter-d', rv, () => false, signal());
    await cluster.server.whenWatching({ resource: 'pods' });
    cluster.server.cutWatches();
    expect((await watching).type).toBe('closed');

    const since = cluster.requests.last()?.seq ?? 0;
    watching = api.watchPodUntil('adapter-d', rv, () => false, signal());
    await cluster.server.whenWatching({ resource: 'pods', since });
    cluster.api.delete(PODS, NAMESPACE, 'adapter-d', { gracePeriodSeconds: 0 });
    expect((await watching).type).toBe('deleted');

    cluster.server.compactWatchLog();
    expect((await api.watchPodUntil('adapter-d', rv, () => false, signal())).type).toBe('expired');
  });

  it('aborts an in-flight request and a watch when the signal aborts', async () => {
    cluster.faults.add({ method: 'GET', pathPattern: /\/pods$/, watch: false, delayMs: 5_000, times: 1 });
    const controller = new AbortController();
    const listing = api.listPods({}, controller.signal).catch((e: unknown) => e);
    setImmediate(() => controller.abort());
    const started = Date.now();
    expect(await listing).toMatchObject({ message: 'request aborted', status: undefined });
    expect(Date.now() - started).toBeLessThan(2_000);

    await api.createPod(warm('adapter-x'), signal());
    const watchAbort = new AbortController();
    const watching = api.watchPodUntil('adapter-x', undefined, () => false, watchAbort.signal).catch((e: unknown) => e);
    await cluster.server.whenWatching({ resource: 'pods' });
    watchAbort.abort();
    expect(await watching).toMatchObject({ message: 'request aborted' });
  });

  it('reports transport failures with status undefined', async () => {
    const kc = new KubeConfig();
    kc.loadFromOptions({
      clusters: [{ name: 'c', server: 'http://127.0.0.1:1', skipTLSVerify: true }],
      users: [{ name: 'u', token: 't' }],
      contexts: [{ name: 'x', cluster: 'c', user: 'u' }],
      currentContext: 'x',
    });
    const unreachable = new ClientNodeKubeApi({ kubeConfig: kc, namespace: NAMESPACE, registry });
    const error = await unreachable.listPods({ limit: 1 }, signal()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(KubeError);
    expect(error).toMatchObject({ status: undefined, message: expect.stringContaining('ECONNREFUSED') });
    expect(await unreachable.watchPodUntil('x', undefined, () => false, signal()).catch((e: unknown) => e)).toMatchObject({ type: 'closed' });
  });
});
