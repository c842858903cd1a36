/**
 * Owner-reference garbage collection on the fake API server (issue 21 item 3): background cascade (also through
 * chains and from a custom resource), a second live owner keeps a dependent, `propagationPolicy` Orphan and
 * Foreground (blockOwnerDeletion), through the real client-node.
 */
import { AppsV1Api, CoreV1Api, CustomObjectsApi, KubeConfig, PatchStrategy, setHeaderOptions, type V1OwnerReference } from '@kubernetes/client-node';
import { startFakeCluster, type FakeCluster, type KubeObject } from '@cli-mcp/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { widget, WIDGET_CRD, WIDGET_CRD_NAME, WIDGET_GROUP } from './fixtures/widget-crd.js';
import { rawRequest } from './support.js';

const merge = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);
const gone = (o: KubeObject | undefined): boolean => o === undefined;

describe('fake API server: owner-reference garbage collection (client-node)', () => {
  let cluster: FakeCluster;
  let core: CoreV1Api;
  let apps: AppsV1Api;
  let custom: CustomObjectsApi;
  let n = 0;
  const ns = (): string => `gc-${++n}`;

  beforeAll(async () => {
    cluster = await startFakeCluster({ kubelet: false });
    const kc = new KubeConfig();
    kc.loadFromFile(cluster.kubeconfigPath);
    [core, apps, custom] = [kc.makeApiClient(CoreV1Api), kc.makeApiClient(AppsV1Api), kc.makeApiClient(CustomObjectsApi)];
    expect((await rawRequest(`${cluster.url}/apis/apiextensions.k8s.io/v1/customresourcedefinitions`, cluster.caPem, { method: 'POST', body: WIDGET_CRD })).status).toBe(201);
  });
  afterAll(() => cluster?.stop());

  const ownedBy = (owner: { metadata?: { name?: string; uid?: string } }, apiVersion: string, kind: string, extra: Partial<V1OwnerReference> = {}): V1OwnerReference => ({
    apiVersion, kind, name: owner.metadata?.name as string, uid: owner.metadata?.uid as string, ...extra,
  });
  const configMap = (namespace: string, name: string, owners: V1OwnerReference[], finalizers?: string[]) =>
    core.createNamespacedConfigMap({ namespace, body: { metadata: { name, ownerReferences: owners, ...(finalizers ? { finalizers } : {}) }, data: { a: 'b' } } });

  it('background cascade: deleting a custom resource deletes what it owns, through a chain of owners', async () => {
    const namespace = ns();
    const owner = (await custom.createNamespacedCustomObject({ group: WIDGET_GROUP, version: 'v1', plural: 'widgets', namespace, body: widget('inst') })) as KubeObject;
    const controlled = { apiVersion: `${WIDGET_GROUP}/v1`, kind: 'Widget', name: 'inst', uid: owner.metadata.uid as string, controller: true, blockOwnerDeletion: true };
    const deployment = await apps.createNamespacedDeployment({
      namespace,
      body: { metadata: { name: 'server', ownerReferences: [controlled] }, spec: { selector: { matchLabels: { a: 'b' } }, template: { metadata: { labels: { a: 'b' } }, spec: { containers: [{ name: 'c', image: 'i:1' }] } } } },
    });
    await configMap(namespace, 'grandchild', [ownedBy(deployment, 'apps/v1', 'Deployment')]);
    await configMap(namespace, 'unrelated', []);

    await custom.deleteNamespacedCustomObject({ group: WIDGET_GROUP, version: 'v1', plural: 'widgets', namespace, name: 'inst' });
    await cluster.waitFor('deployments', namespace, 'server', gone);
    await cluster.waitFor('configmaps', namespace, 'grandchild', gone);
    expect(cluster.store.get('configmaps', namespace, 'unrelated')).toBeDefined();
    expect(cluster.store.get(WIDGET_CRD_NAME, namespace, 'inst')).toBeUndefined();
  });

  it('a dependent with another live owner stays and loses only the dangling reference', async () => {
    const namespace = ns();
    const [a, b] = [await configMap(namespace, 'a', []), await configMap(namespace, 'b', [])];
    await configMap(namespace, 'shared', [ownedBy(a, 'v1', 'ConfigMap'), ownedBy(b, 'v1', 'ConfigMap')]);
    await core.deleteNamespacedConfigMap({ name: 'a', namespace });
    const shared = await cluster.waitFor('configmaps', namespace, 'shared', (o) => (o?.metadata['ownerReferences'] as unknown[] | undefined)?.length === 1);
    expect(shared?.metadata['ownerReferences']).toEqual([ownedBy(b, 'v1', 'ConfigMap')]);
    await core.deleteNamespacedConfigMap({ name: 'b', namespace });
    await cluster.waitFor('configmaps', namespace, 'shared', gone);
  });

  it('propagationPolicy Orphan keeps the dependents, without the reference', async () => {
    const namespace = ns();
    const owner = await configMap(namespace, 'owner', []);
    await configMap(namespace, 'child', [ownedBy(owner, 'v1', 'ConfigMap')]);
    const deleting = await rawRequest(`${cluster.url}/api/v1/namespaces/${namespace}/configmaps/owner`, cluster.caPem, { method: 'DELETE', body: { propagationPolicy: 'Orphan' } });
    expect(deleting.body.metadata.finalizers).toEqual(['orphan']);
    await cluster.waitFor('configmaps', namespace, 'owner', gone);
    const child = cluster.store.get('configmaps', namespace, 'child');
    expect(child).toBeDefined();
    expect(child?.metadata['ownerReferences']).toBeUndefined();
  });

  it('propagationPolicy Foreground deletes the dependents first; a blocking one holds the owner until it is gone', async () => {
    const namespace = ns();
    const owner = await configMap(namespace, 'owner', []);
    await configMap(namespace, 'blocker', [ownedBy(owner, 'v1', 'ConfigMap', { blockOwnerDeletion: true })], ['example.com/hold']);
    await configMap(namespace, 'free', [ownedBy(owner, 'v1', 'ConfigMap')]);
    await core.deleteNamespacedConfigMap({ name: 'owner', namespace, body: { propagationPolicy: 'Foreground' } });
    await cluster.waitFor('configmaps', namespace, 'free', gone);
    // Deleted in the foreground too; having no dependents of its own, the collector drops that finalizer at once.
    const blocker = await cluster.waitFor('configmaps', namespace, 'blocker', (o) => o?.metadata.deletionTimestamp !== undefined && o.metadata.finalizers?.length === 1);
    expect(blocker?.metadata.finalizers).toEqual(['example.com/hold']);
    const held = cluster.store.get('configmaps', namespace, 'owner');
    expect(held?.metadata.finalizers).toEqual(['foregroundDeletion']);
    expect(held?.metadata.deletionTimestamp).toBeDefined();

    expect(cluster.store.get('configmaps', namespace, 'owner')).toBeDefined();
    await core.patchNamespacedConfigMap({ name: 'blocker', namespace, body: { metadata: { finalizers: null } } }, merge);
    await cluster.waitFor('configmaps', namespace, 'blocker', gone);
    await cluster.waitFor('configmaps', namespace, 'owner', gone);
  });
});
