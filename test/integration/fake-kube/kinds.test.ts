/**
 * The built-in kinds an operator writes (issue 21 item 3), through client-node's typed APIs: Deployments (status
 * subresource, generation, selector rules), Services (cluster IP, defaults), ServiceAccounts, Roles and
 * RoleBindings, NetworkPolicies (policyTypes defaulting), ConfigMaps, Events (field selectors kubectl describe
 * uses), EndpointSlices and PodDisruptionBudgets.
 */
import {
  AppsV1Api,
  CoreV1Api,
  DiscoveryV1Api,
  KubeConfig,
  NetworkingV1Api,
  PatchStrategy,
  PolicyV1Api,
  RbacAuthorizationV1Api,
  setHeaderOptions,
  type V1Deployment,
} from '@kubernetes/client-node';
import { startFakeCluster, type FakeCluster } from '@cli-mcp/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiError, rawRequest } from './support.js';

const merge = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);
const NS = 'kinds';

function deployment(name: string, labels: Record<string, string> = { app: name }): V1Deployment {
  return {
    metadata: { name },
    spec: { selector: { matchLabels: { app: name } }, template: { metadata: { labels }, spec: { containers: [{ name: 'server', image: 'server:1', args: ['--port', '8080'] }] } } },
  };
}

describe('fake API server: built-in kinds of an operator (client-node)', () => {
  let cluster: FakeCluster;
  let apps: AppsV1Api;
  let core: CoreV1Api;
  let rbac: RbacAuthorizationV1Api;
  let networking: NetworkingV1Api;
  let policy: PolicyV1Api;
  let discovery: DiscoveryV1Api;

  beforeAll(async () => {
    cluster = await startFakeCluster({ kubelet: false, namespace: NS });
    const kc = new KubeConfig();
    kc.loadFromFile(cluster.kubeconfigPath);
    [apps, core, rbac, networking, policy, discovery] = [kc.makeApiClient(AppsV1Api), kc.makeApiClient(CoreV1Api), kc.makeApiClient(RbacAuthorizationV1Api), kc.makeApiClient(NetworkingV1Api), kc.makeApiClient(PolicyV1Api), kc.makeApiClient(DiscoveryV1Api)];
  });
  afterAll(() => cluster?.stop());

  it('Deployments: defaults, generation on spec changes only, status settable through /status only, selector rules', async () => {
    const created = await apps.createNamespacedDeployment({ namespace: NS, body: deployment('mcp') });
    expect(created.spec).toMatchObject({ replicas: 1, revisionHistoryLimit: 10, progressDeadlineSeconds: 600, strategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: '25%', maxSurge: '25%' } } });
    expect(created.spec?.template.spec?.containers[0]).toMatchObject({ args: ['--port', '8080'], imagePullPolicy: 'IfNotPresent' });
    expect(created.metadata?.generation).toBe(1);
    expect(created.status).toBeUndefined();

    const scaled = await apps.patchNamespacedDeployment({ name: 'mcp', namespace: NS, body: { spec: { replicas: 0 }, status: { replicas: 5 } } }, merge);
    expect([scaled.metadata?.generation, scaled.status]).toEqual([2, undefined]);
    const status = await apps.patchNamespacedDeploymentStatus(
      { name: 'mcp', namespace: NS, body: { status: { observedGeneration: 2, replicas: 1, readyReplicas: 1, availableReplicas: 1, conditions: [{ type: 'Available', status: 'True' }] } } },
      merge,
    );
    expect(status.status).toMatchObject({ observedGeneration: 2, readyReplicas: 1 });
    expect(status.metadata?.generation).toBe(2);
    expect((await apps.readNamespacedDeployment({ name: 'mcp', namespace: NS })).status?.readyReplicas).toBe(1);

    const mismatch = await apiError(apps.createNamespacedDeployment({ namespace: NS, body: deployment('odd', { app: 'other' }) }));
    expect(mismatch.status?.message).toBe('Deployment.apps "odd" is invalid: spec.template.metadata.labels: Invalid value: "map[string]string{\\"app\\":\\"other\\"}": `selector` does not match template `labels`');
    const immutable = await apiError(apps.patchNamespacedDeployment({ name: 'mcp', namespace: NS, body: { spec: { selector: { matchLabels: { app: 'x' } }, template: { metadata: { labels: { app: 'x' } } } } } }, merge));
    expect(immutable.status?.message).toContain('spec.selector: Invalid value: ');
    expect(immutable.status?.message).toContain('field is immutable');
  });

  it('Services: a cluster IP allocated and kept, ports defaulted and required', async () => {
    const service = await core.createNamespacedService({ namespace: NS, body: { metadata: { name: 'mcp' }, spec: { selector: { app: 'mcp' }, ports: [{ port: 8080 }] } } });
    expect(service.spec).toMatchObject({ type: 'ClusterIP', sessionAffinity: 'None', ports: [{ port: 8080, targetPort: 8080, protocol: 'TCP' }] });
    expect(service.spec?.clusterIP).toMatch(/^10\.96\.\d+\.\d+$/);
    expect(service.spec?.clusterIPs).toEqual([service.spec?.clusterIP]);
    const replaced = await core.replaceNamespacedService({ name: 'mcp', namespace: NS, body: { metadata: { name: 'mcp' }, spec: { selector: { app: 'mcp' }, ports: [{ port: 9090 }] } } });
    expect(replaced.spec?.clusterIP).toBe(service.spec?.clusterIP);
    const other = await core.createNamespacedService({ namespace: NS, body: { metadata: { name: 'other' }, spec: { ports: [{ port: 1 }] } } });
    expect(other.spec?.clusterIP).not.toBe(service.spec?.clusterIP);
    expect((await apiError(core.createNamespacedService({ namespace: NS, body: { metadata: { name: 'noports' }, spec: {} } }))).status?.message).toBe('Service "noports" is invalid: spec.ports: Required value');
  });

  it('ServiceAccounts, Roles and RoleBindings (roleRef cannot change), NetworkPolicies (policyTypes defaulted)', async () => {
    await core.createNamespacedServiceAccount({ namespace: NS, body: { metadata: { name: 'sandbox' }, automountServiceAccountToken: false } });
    expect((await core.readNamespacedServiceAccount({ name: 'sandbox', namespace: NS })).automountServiceAccountToken).toBe(false);
    await rbac.createNamespacedRole({ namespace: NS, body: { metadata: { name: 'r' }, rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['get', 'list'] }] } });
    expect((await apiError(rbac.createNamespacedRole({ namespace: NS, body: { metadata: { name: 'bad' }, rules: [{ apiGroups: [''], resources: ['pods'], verbs: [] }] } }))).code).toBe(422);
    const subjects = [{ kind: 'ServiceAccount', name: 'sandbox', namespace: NS }];
    await rbac.createNamespacedRoleBinding({ namespace: NS, body: { metadata: { name: 'rb' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'r' }, subjects } });
    const changed = await apiError(rbac.patchNamespacedRoleBinding({ name: 'rb', namespace: NS, body: { roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'admin' } } }, merge));
    expect(changed.status?.message).toContain('roleRef: Invalid value: ');
    expect(changed.status?.message).toContain('cannot change roleRef');

    const ingressOnly = await networking.createNamespacedNetworkPolicy({ namespace: NS, body: { metadata: { name: 'in' }, spec: { podSelector: { matchLabels: { app: 'x' } } } } });
    expect(ingressOnly.spec?.policyTypes).toEqual(['Ingress']);
    const egress = await networking.createNamespacedNetworkPolicy({ namespace: NS, body: { metadata: { name: 'out' }, spec: { podSelector: {}, egress: [{ ports: [{ port: 53 }] }] } } });
    expect(egress.spec?.policyTypes).toEqual(['Ingress', 'Egress']);
    expect(egress.spec?.egress?.[0]?.ports?.[0]?.protocol).toBe('TCP');
  });

  it('ConfigMaps (immutable), Events with the involvedObject field selectors, EndpointSlices, PodDisruptionBudgets', async () => {
    await core.createNamespacedConfigMap({ namespace: NS, body: { metadata: { name: 'routes' }, data: { 'routes.json': '[]' }, immutable: true } });
    const frozen = await apiError(core.patchNamespacedConfigMap({ name: 'routes', namespace: NS, body: { data: { 'routes.json': '[1]' } } }, merge));
    expect(frozen.status?.message).toBe('ConfigMap "routes" is invalid: data: Forbidden: field is immutable when `immutable` is set');

    const involvedObject = { apiVersion: 'example.com/v1', kind: 'Widget', name: 'w', namespace: NS, uid: 'u-1' };
    await core.createNamespacedEvent({ namespace: NS, body: { metadata: { name: 'w.1' }, involvedObject, reason: 'Ready', message: 'ready', type: 'Normal', source: { component: 'op' } } });
    await core.createNamespacedEvent({ namespace: NS, body: { metadata: { name: 'v.1' }, involvedObject: { ...involvedObject, name: 'v' }, reason: 'Ready', type: 'Normal' } });
    const selected = await core.listNamespacedEvent({ namespace: NS, fieldSelector: 'involvedObject.name=w,involvedObject.namespace=kinds,involvedObject.kind=Widget,involvedObject.uid=u-1' });
    expect(selected.items.map((e) => e.metadata?.name)).toEqual(['w.1']);
    expect((await apiError(core.createNamespacedEvent({ namespace: NS, body: { metadata: { name: 'x.1' }, involvedObject: { ...involvedObject, namespace: 'elsewhere' } } }))).code).toBe(422);

    await discovery.createNamespacedEndpointSlice({
      namespace: NS,
      body: { metadata: { name: 'mcp-abc', labels: { 'kubernetes.io/service-name': 'mcp' } }, addressType: 'IPv4', endpoints: [{ addresses: ['127.0.0.9'], conditions: { ready: true } }], ports: [{ port: 8080 }] },
    });
    expect((await discovery.listNamespacedEndpointSlice({ namespace: NS, labelSelector: 'kubernetes.io/service-name=mcp' })).items[0]?.endpoints[0]?.conditions?.ready).toBe(true);

    const pdb = await policy.createNamespacedPodDisruptionBudget({ namespace: NS, body: { metadata: { name: 'p' }, spec: { minAvailable: 1, selector: { matchLabels: { app: 'mcp' } } } } });
    expect(pdb.metadata?.generation).toBe(1);
    const both = await apiError(policy.createNamespacedPodDisruptionBudget({ namespace: NS, body: { metadata: { name: 'q' }, spec: { minAvailable: 1, maxUnavailable: '50%' } } }));
    expect(both.status?.message).toContain('minAvailable and maxUnavailable cannot be both set');
  });

  it('discovery lists every group and resource with its short names', async () => {
    const raw = (path: string) => rawRequest(`${cluster.url}${path}`, cluster.caPem);
    const groups = (await raw('/apis')).body.groups.map((g: { name: string }) => g.name);
    expect(groups).toEqual(expect.arrayContaining(['apps', 'rbac.authorization.k8s.io', 'networking.k8s.io', 'discovery.k8s.io', 'policy', 'coordination.k8s.io', 'apiextensions.k8s.io']));
    const core = (await raw('/api/v1')).body.resources.map((r: { name: string }) => r.name);
    expect(core).toEqual(expect.arrayContaining(['pods', 'pods/status', 'secrets', 'configmaps', 'serviceaccounts', 'services', 'services/status', 'events']));
    expect((await raw('/apis/apps/v1')).body.resources[0]).toMatchObject({ name: 'deployments', shortNames: ['deploy'], categories: ['all'] });
  });
});
