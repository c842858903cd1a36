/**
 * The controller's pod informer (client-node ListWatch + restart) against the fake API server over HTTP: it lists,
 * follows changes, and survives a clean cut, an abrupt cut, a 410 Expired (re-list) and API errors without losing
 * an event (issue 9: "a 410 or cut watch restarts the informer without losing events"). The restart back-off
 * runs on a fake clock, so the test decides when the informer comes back.
 */
import { KubeConfig, type V1Pod } from '@kubernetes/client-node';
import { sandboxSelector } from '@cli-mcp/podspec';
import { FakeClock, PODS, startFakeCluster, type FakeCluster } from '@cli-mcp/testing';
import { Registry } from 'prom-client';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { silentControllerLogger } from '../../../apps/sandbox-controller/src/controller-logger.js';
import { ListWatchPodInformer } from '@cli-mcp/kube/client-node';
import type { PodChange } from '@cli-mcp/kube';
import { untilInformer } from './support/controller-stack.js';

const NAMESPACE = 'cli-mcp';
const INSTANCE = 'inf';

let cluster: FakeCluster;
let informer: ListWatchPodInformer | undefined;

beforeAll(async () => {
  cluster = await startFakeCluster({ namespace: NAMESPACE, kubelet: false });
});
afterEach(async () => {
  await informer?.stop();
  informer = undefined;
  cluster.faults.clear();
  for (const pod of cluster.store.list('pods', NAMESPACE)) cluster.api.delete(PODS, NAMESPACE, pod.metadata.name as string, { gracePeriodSeconds: 0 });
});
afterAll(async () => {
  await cluster?.stop();
});

function sandboxPod(name: string, instance = INSTANCE): Record<string, unknown> {
  return {
    apiVersion: 'v1', kind: 'Pod',
    metadata: { name, labels: { 'cli-mcp.redhat.com/instance': instance, 'cli-mcp.redhat.com/component': 'sandbox' } },
    spec: { containers: [{ name: 'sandbox', image: 'x' }] },
  };
}

function startInformer(clock = new FakeClock()): { informer: ListWatchPodInformer; changes: PodChange[]; clock: FakeClock; registry: Registry } {
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromFile(cluster.kubeconfigPath);
  const registry = new Registry();
  const started = new ListWatchPodInformer({
    kubeConfig, namespace: NAMESPACE, labelSelector: sandboxSelector(INSTANCE), registry, clock, random: () => 0.5, logger: silentControllerLogger,
  });
  const changes: PodChange[] = [];
  started.onChange((change) => changes.push(change));
  informer = started;
  started.start();
  return { informer: started, changes, clock, registry };
}

const until = (target: ListWatchPodInformer, predicate: () => boolean, what: string): Promise<void> => untilInformer(target, predicate, what, 10_000);

const names = (pods: V1Pod[]): string[] => pods.map((p) => p.metadata!.name!).sort();

describe(ListWatchPodInformer.name, () => {
  it('lists the instance’s sandbox pods (not other instances’), then follows adds, updates and deletes', async () => {
    cluster.api.create(PODS, NAMESPACE, sandboxPod('a'));
    cluster.api.create(PODS, NAMESPACE, sandboxPod('other', 'someone-else'));
    const { informer: sut, changes } = startInformer();
    await until(sut, () => sut.synced, 'the first list');
    expect(names(sut.pods())).toEqual(['a']);
    expect(sut.problem).toBeUndefined();

    await cluster.server.whenWatching({ resource: 'pods' });
    cluster.api.create(PODS, NAMESPACE, sandboxPod('b'));
    cluster.api.patch(PODS, NAMESPACE, 'a', 'merge', { metadata: { labels: { 'cli-mcp.redhat.com/session-id': 's1' } } });
    cluster.api.delete(PODS, NAMESPACE, 'b', { gracePeriodSeconds: 0 });
    await until(sut, () => changes.some((c) => c.type === 'deleted' && c.pod.metadata?.name === 'b'), 'the delete of b');
    const claimed = changes.find((c) => c.type === 'updated' && c.pod.metadata?.name === 'a')!;
    expect(claimed.previous?.metadata?.labels?.['cli-mcp.redhat.com/session-id']).toBeUndefined();
    expect(claimed.pod.metadata?.labels?.['cli-mcp.redhat.com/session-id']).toBe('s1');
    expect(names(sut.pods())).toEqual(['a']);
  });

  it('resumes from its resourceVersion after a clean cut and after an abrupt one (restart after back-off), missing nothing', async () => {
    const listsBefore = cluster.requests.count({ verb: 'list', resource: 'pods' });
    const { informer: sut, changes, clock } = startInformer();
    await until(sut, () => sut.synced, 'the first list');
    let watch = await cluster.server.whenWatching({ resource: 'pods' });

    cluster.server.cutWatches(); // clean end of stream: ListWatch re-watches at once
    watch = await cluster.server.whenWatching({ resource: 'pods', since: watch.seq });
    expect(watch.query['resourceVersion']).not.toBe('');

    cluster.server.cutWatches({ abrupt: true }); // socket destroyed: ListWatch stops, ours restarts later
    await until(sut, () => sut.problem !== undefined, 'the informer to notice the cut');
    cluster.api.create(PODS, NAMESPACE, sandboxPod('made-while-cut'));
    cluster.api.create(PODS, NAMESPACE, sandboxPod('gone-while-cut'));
    cluster.api.delete(PODS, NAMESPACE, 'gone-while-cut', { gracePeriodSeconds: 0 });
    clock.advance(1_500); // the back-off (1 s ± 20 %) elapses: restart from the last resourceVersion
    await until(sut, () => changes.some((c) => c.type === 'deleted' && c.pod.metadata?.name === 'gone-while-cut'), 'the replayed events');
    expect(names(sut.pods())).toEqual(['made-while-cut']);
    expect(sut.problem).toBeUndefined();
    expect(cluster.requests.count({ verb: 'list', resource: 'pods' })).toBe(listsBefore + 1); // resumed, never re-listed
  });

  it('re-lists after 410 Expired and reports what went away meanwhile as deletions', async () => {
    cluster.api.create(PODS, NAMESPACE, sandboxPod('old'));
    const { informer: sut, changes, clock } = startInformer();
    await until(sut, () => sut.synced, 'the first list');
    await cluster.server.whenWatching({ resource: 'pods' });
    const listsBefore = cluster.requests.count({ verb: 'list', resource: 'pods' });

    cluster.server.cutWatches({ abrupt: true });
    await until(sut, () => sut.problem !== undefined, 'the informer to notice the cut');
    cluster.api.delete(PODS, NAMESPACE, 'old', { gracePeriodSeconds: 0 });
    cluster.api.create(PODS, NAMESPACE, sandboxPod('new'));
    cluster.server.compactWatchLog(); // the informer's resourceVersion is now too old: 410
    clock.advance(1_500);
    await until(sut, () => names(sut.pods()).join() === 'new', 'the re-list');
    expect(changes.some((c) => c.type === 'deleted' && c.pod.metadata?.name === 'old')).toBe(true);
    expect(changes.some((c) => c.type === 'added' && c.pod.metadata?.name === 'new')).toBe(true);
    expect(cluster.requests.count({ verb: 'list', resource: 'pods' })).toBe(listsBefore + 1);
  });

  it('keeps retrying a failing API with growing back-off, says why meanwhile, and recovers without a restart', async () => {
    const rule = cluster.faults.add({ method: 'GET', pathPattern: /\/pods$/, watch: false, status: 500 });
    const { informer: sut, clock, registry, changes } = startInformer();
    await until(sut, () => sut.problem?.startsWith('pod list/watch failing') === true, 'the first failure');
    expect(sut.synced).toBe(false);
    clock.advance(1_300);
    await until(sut, () => rule.hits >= 2, 'the first retry');
    clock.advance(1_000); // not yet: the second delay is ~2 s
    expect(rule.hits).toBe(2);
    rule.remove();
    clock.advance(2_000);
    await until(sut, () => sut.synced && sut.problem === undefined, 'recovery');
    await cluster.server.whenWatching({ resource: 'pods' });
    cluster.api.create(PODS, NAMESPACE, sandboxPod('after-recovery'));
    await until(sut, () => changes.some((c) => c.pod.metadata?.name === 'after-recovery'), 'an event on the new watch');
    const metrics = await registry.getSingleMetricAsString('cli_mcp_kube_requests_total');
    expect(metrics).toContain('verb="list",resource="pods",code="500"');
    expect(metrics).toContain('verb="watch",resource="pods",code="200"');
  });
});
