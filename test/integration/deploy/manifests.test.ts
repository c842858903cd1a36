/**
 * C-SHIP-2/3 on the rendered manifests: `kubectl kustomize` renders the base and every overlay; each object
 * validates offline against the Kubernetes schemas; selectors match the labels the pods really carry (server,
 * controller and egress gateway pods from their Deployments, sandbox pods from libs/podspec with the rendered
 * settings); every pod template passes the restricted Pod Security Standard; RBAC is exactly C-K8S-10 (+ leases get)
 * for the server, the controller's and the gateway's for them; both Deployments are highly available and probed on
 * /live and /health; the controller talks only to the API server and is reached only on its metrics port; and
 * credentials never enter a sandbox (issue 20, C-EGR-1): every render carries the egress gateway, which alone mounts
 * the investigation kubeconfig, and the fail-closed gate (C-EGR-6) opens on its NetworkPolicies.
 */
import type { V1Deployment, V1PodTemplateSpec } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { buildSessionPod, buildWarmPod, egressNames } from '@cli-mcp/podspec';
import { egressGateVerdict, type GateNetworkPolicy } from '@cli-mcp/kube';
import { checkRestrictedPodSecurity } from '../../../libs/podspec/src/testing/restricted-pss.js';
import { controllerConfigOf, deploymentOf } from './support/effective-settings.js';
import { kustomizeTargets, render, schemaProblem, selects, type LabelSelector, type Manifest } from './support/rendered.js';
import { describeWhenReady, KUBECTL, KUBECTL_PROBLEM } from '../../support/prerequisites.js';
import { modelName, unknownFields } from './support/unknown-fields.js';


const targets = kustomizeTargets();
const rendered = new Map(KUBECTL ? targets.map((target) => [target, render(target)]) : []);
const of = (target: string, kind: string): Manifest[] => (rendered.get(target) ?? []).filter((m) => m.kind === kind);
const serverDeployment = (target: string): V1Deployment => deploymentOf(rendered.get(target) ?? [], '-server');
const controllerDeployment = (target: string): V1Deployment => deploymentOf(rendered.get(target) ?? [], '-controller');
const gatewayDeployment = (target: string): V1Deployment => deploymentOf(rendered.get(target) ?? [], '-egress');
const named = (target: string, kind: string, suffix: string): Manifest => {
  const found = of(target, kind).find((m) => m.metadata.name.endsWith(suffix));
  if (!found) throw new Error(`${target}: no ${kind} *${suffix}`);
  return found;
};
type Service = Manifest & { spec: { selector: Record<string, string>; ports: Array<{ name: string; port: number; targetPort: string | number }> } };

/**
 * The labels of the sandbox pods of this instance (a session pod and a pool pod), built by libs/podspec from the
 * rendered settings (the controller's; sandbox-settings.test.ts proves the servers' are identical).
 */
function sandboxPods(target: string): Array<{ labels: Record<string, string>; port: number }> {
  const { podConfig } = controllerConfigOf(rendered.get(target) ?? []);
  return [buildSessionPod(podConfig, podConfig.instanceName, 's-1', new Date()), buildWarmPod(podConfig, 'warm-1', new Date())].map((pod) => ({
    labels: pod.metadata!.labels!,
    port: pod.spec!.containers[0]!.ports![0]!.containerPort,
  }));
}

for (const target of targets) describeWhenReady(target, KUBECTL_PROBLEM, () => {
  const manifests = () => rendered.get(target) ?? [];

  it('renders with kubectl kustomize', () => {
    expect(manifests().length).toBeGreaterThan(5);
  });

  it('validates offline against the Kubernetes OpenAPI schemas (kubernetes-models)', async () => {
    const problems: string[] = [];
    for (const manifest of manifests()) {
      const problem = await schemaProblem(manifest);
      if (problem === 'unsupported') expect(manifest.kind, 'only the OpenShift Route has no schema package').toBe('Route');
      else if (problem !== undefined) problems.push(`${manifest.kind}/${manifest.metadata.name}: ${problem}`);
    }
    expect(problems).toEqual([]);
  });

  it('has no field the Kubernetes API does not know (client-node model tables), so no typo ships a dropped setting', () => {
    const found: string[] = [];
    for (const manifest of manifests()) {
      const model = modelName(manifest.apiVersion, manifest.kind);
      // CRDs (ServiceMonitor, PrometheusRule) and the OpenShift Route have no client-node model.
      if (!model) expect(manifest.apiVersion, `${manifest.kind} has a built-in model`).toMatch(/monitoring\.coreos\.com|route\.openshift\.io/);
      else found.push(...unknownFields(manifest, model).map((path) => `${manifest.kind}/${manifest.metadata.name}${path}`));
    }
    // The sandbox pods the server and controller build from these settings (libs/podspec), too.
    const { podConfig } = controllerConfigOf(manifests());
    for (const pod of [buildSessionPod(podConfig, podConfig.instanceName, 's-1', new Date()), buildWarmPod(podConfig, 'warm-1', new Date())]) {
      found.push(...unknownFields(pod, 'V1Pod').map((path) => `sandbox Pod/${pod.metadata!.name}${path}`));
    }
    expect(found).toEqual([]);
  });

  it('every pod template passes the restricted Pod Security Standard', () => {
    for (const deployment of of(target, 'Deployment') as unknown as V1Deployment[]) {
      const template = deployment.spec!.template as V1PodTemplateSpec;
      expect(checkRestrictedPodSecurity({ metadata: template.metadata, spec: template.spec }), deployment.metadata!.name).toEqual([]);
    }
  });

  it('selectors match the labels pods really carry: Deployments, Services, PDBs, spread, NetworkPolicies, ServiceMonitors', () => {
    const kinds = { server: serverDeployment(target), controller: controllerDeployment(target), 'egress-gateway': gatewayDeployment(target) };
    const podLabels: Record<string, Record<string, string>> = Object.fromEntries(Object.entries(kinds).map(([kind, d]) => [kind, d.spec!.template.metadata!.labels!]));
    const sandboxes = sandboxPods(target);
    const whoIs = (selector: LabelSelector | undefined): string[] => [
      ...Object.keys(podLabels).filter((kind) => selects(selector, podLabels[kind]!)),
      ...(sandboxes.every((pod) => selects(selector, pod.labels)) ? ['sandbox'] : []),
    ];
    for (const [kind, deployment] of Object.entries(kinds) as Array<[keyof typeof kinds, V1Deployment]>) {
      expect(whoIs(deployment.spec!.selector as LabelSelector), `${kind} Deployment selector`).toEqual([kind]);
      for (const constraint of deployment.spec!.template.spec!.topologySpreadConstraints ?? []) expect(whoIs(constraint.labelSelector as LabelSelector)).toEqual([kind]);
      const service = named(target, 'Service', kind === 'egress-gateway' ? '-egress' : `-${kind}`) as Service;
      expect(whoIs({ matchLabels: service.spec.selector }), `${kind} Service`).toEqual([kind]);
      expect(sandboxes.some((pod) => selects({ matchLabels: service.spec.selector }, pod.labels))).toBe(false);
      // A Service's targetPort names a container port, or gives its number (the gateway's builder does).
      const containerPorts = deployment.spec!.template.spec!.containers[0]!.ports!.flatMap((p) => [p.name, p.containerPort]);
      for (const port of service.spec.ports) expect(containerPorts).toContain(port.targetPort);
    }
    // One PDB per Deployment, each selecting exactly its pods.
    expect((of(target, 'PodDisruptionBudget') as Array<Manifest & { spec: { selector: LabelSelector } }>).map((pdb) => whoIs(pdb.spec.selector)).sort()).toEqual(
      [['controller'], ['egress-gateway'], ['server']],
    );

    const policies = of(target, 'NetworkPolicy') as Array<Manifest & { spec: { podSelector: LabelSelector; ingress?: Array<{ from?: Array<{ podSelector?: LabelSelector; namespaceSelector?: LabelSelector }>; ports?: Array<{ port: number }> }> } }>;
    for (const policy of policies) expect(whoIs(policy.spec.podSelector), `${policy.metadata.name} selects exactly one kind of pod`).toHaveLength(1);
    const sandboxPolicy = policies.find((p) => p.metadata.name.endsWith('-sandbox'))!;
    expect(whoIs(sandboxPolicy.spec.podSelector)).toEqual(['sandbox']);
    const [ingress] = sandboxPolicy.spec.ingress!;
    expect(sandboxPolicy.spec.ingress).toHaveLength(1);
    expect(ingress!.from!.every((peer) => peer.namespaceSelector === undefined && whoIs(peer.podSelector).join() === 'server')).toBe(true);
    expect(ingress!.ports!.map((p) => p.port)).toEqual([...new Set(sandboxes.map((pod) => pod.port))]);
    for (const kind of ['server', 'controller', 'egress-gateway', 'sandbox']) expect(policies.some((p) => whoIs(p.spec.podSelector).join() === kind), `a policy for ${kind} pods`).toBe(true);

    const services = of(target, 'Service') as Service[];
    for (const monitor of of(target, 'ServiceMonitor') as Array<Manifest & { spec: { selector: LabelSelector; endpoints: Array<{ port: string }> } }>) {
      const scraped = services.filter((service) => selects(monitor.spec.selector, service.metadata.labels ?? {}));
      expect(scraped.map((service) => service.metadata.name), monitor.metadata.name).toHaveLength(1);
      for (const endpoint of monitor.spec.endpoints) expect(scraped[0]!.spec.ports.map((p) => p.name)).toContain(endpoint.port);
    }
    const server = named(target, 'Service', '-server') as Service;
    for (const route of of(target, 'Route') as Array<Manifest & { spec: { to: { kind: string; name: string }; port: { targetPort: string } } }>) {
      expect(route.spec.to).toMatchObject({ kind: 'Service', name: server.metadata.name });
      expect(server.spec.ports.map((p) => p.name)).toContain(route.spec.port.targetPort);
    }
  });

  it('lets the controller reach only the API server (443/6443) and be reached only on its metrics port, the one its ServiceMonitor scrapes', () => {
    const policy = named(target, 'NetworkPolicy', '-controller') as Manifest & { spec: { policyTypes: string[]; ingress: Array<{ from?: unknown; ports: Array<{ port: number }> }>; egress: Array<{ to: Array<{ ipBlock?: { cidr: string } }>; ports: Array<{ port: number }> }> } };
    expect(policy.spec.policyTypes.sort()).toEqual(['Egress', 'Ingress']);
    expect(policy.spec.egress.flatMap((rule) => rule.ports.map((p) => p.port)).sort((a, b) => a - b)).toEqual([443, 6443]);
    expect(policy.spec.egress.every((rule) => rule.to.every((peer) => peer.ipBlock !== undefined))).toBe(true);
    const container = controllerDeployment(target).spec!.template.spec!.containers[0]!;
    const metricsPort = container.ports!.find((p) => p.name === 'http')!.containerPort;
    expect(policy.spec.ingress.flatMap((rule) => rule.ports.map((p) => p.port))).toEqual([metricsPort]);
    const service = named(target, 'Service', '-controller') as Service;
    expect(service.spec.ports.map((p) => p.targetPort)).toEqual(['http']);
  });

  it('references only objects it defines: service accounts, roles, the sandbox account the server names', () => {
    const accounts = of(target, 'ServiceAccount').map((sa) => sa.metadata.name);
    const configMaps = of(target, 'ConfigMap').map((cm) => cm.metadata.name);
    for (const deployment of of(target, 'Deployment') as unknown as V1Deployment[]) {
      expect(accounts).toContain(deployment.spec!.template.spec!.serviceAccountName);
      for (const from of deployment.spec!.template.spec!.containers[0]!.envFrom ?? []) expect(configMaps).toContain(from.configMapRef?.name);
      for (const volume of deployment.spec!.template.spec!.volumes ?? []) if (volume.configMap) expect(configMaps).toContain(volume.configMap.name);
    }
    expect(serverDeployment(target).spec!.template.spec!.serviceAccountName).toMatch(/-server$/);
    expect(controllerDeployment(target).spec!.template.spec!.serviceAccountName).toMatch(/-controller$/);
    const { podConfig } = controllerConfigOf(rendered.get(target) ?? []);
    expect(accounts).toContain(podConfig.serviceAccountName);
    const roles = of(target, 'Role').map((role) => role.metadata.name);
    for (const binding of of(target, 'RoleBinding') as Array<Manifest & { roleRef: { kind: string; name: string }; subjects: Array<{ kind: string; name: string }> }>) {
      expect(binding.roleRef.kind).toBe('Role');
      expect(roles).toContain(binding.roleRef.name);
      for (const subject of binding.subjects) expect(accounts).toContain(subject.name);
    }
    const sandboxAccount = of(target, 'ServiceAccount').find((sa) => sa.metadata.name === podConfig.serviceAccountName) as Manifest & { automountServiceAccountToken?: boolean };
    expect(sandboxAccount.automountServiceAccountToken).toBe(false);
    const bound = (of(target, 'RoleBinding') as Array<Manifest & { subjects: Array<{ name: string }> }>).flatMap((b) => b.subjects.map((s) => s.name));
    expect(bound).not.toContain(sandboxAccount.metadata.name);
  });

  const rulesOf = (suffix: string) =>
    (of(target, 'Role').find((r) => r.metadata.name.endsWith(suffix)) as Manifest & { rules: Array<{ apiGroups: string[]; resources: string[]; verbs: string[]; resourceNames?: string[] }> }).rules.map(
      (r) => ({ groups: r.apiGroups, resources: [...r.resources].sort(), verbs: [...r.verbs].sort(), ...(r.resourceNames ? { names: r.resourceNames } : {}) }),
    );

  it('grants the server exactly the C-K8S-10 verbs plus leases get (controller status in /health) and the egress gate\'s reads (two lists, its Service by name), nothing cluster-scoped', () => {
    expect(rulesOf('-server')).toEqual([
      { groups: [''], resources: ['pods'], verbs: ['create', 'delete', 'get', 'list', 'patch', 'watch'] },
      { groups: [''], resources: ['secrets'], verbs: ['create', 'delete'] },
      { groups: ['coordination.k8s.io'], resources: ['leases'], verbs: ['get'] },
      { groups: ['discovery.k8s.io'], resources: ['endpointslices'], verbs: ['list'] },
      { groups: ['networking.k8s.io'], resources: ['networkpolicies'], verbs: ['list'] },
      { groups: [''], resources: ['services'], verbs: ['get'], names: [egressNames('oc').gateway] },
    ]);
    expect(of(target, 'ClusterRole')).toHaveLength(0);
    expect(of(target, 'ClusterRoleBinding')).toHaveLength(0);
  });

  it('grants the controller exactly pods get/list/watch/create/delete/patch, secrets list/delete, leases get/create/update, the egress gate\'s reads', () => {
    expect(rulesOf('-controller')).toEqual([
      { groups: [''], resources: ['pods'], verbs: ['create', 'delete', 'get', 'list', 'patch', 'watch'] },
      { groups: [''], resources: ['secrets'], verbs: ['delete', 'list'] },
      { groups: ['coordination.k8s.io'], resources: ['leases'], verbs: ['create', 'get', 'update'] },
      { groups: ['discovery.k8s.io'], resources: ['endpointslices'], verbs: ['list'] },
      { groups: ['networking.k8s.io'], resources: ['networkpolicies'], verbs: ['list'] },
      { groups: [''], resources: ['services'], verbs: ['get'], names: [egressNames('oc').gateway] },
    ]);
    const binding = of(target, 'RoleBinding').find((b) => b.metadata.name.endsWith('-controller')) as unknown as { roleRef: { name: string }; subjects: Array<{ kind: string; name: string }> };
    expect(binding.roleRef.name).toMatch(/-controller$/);
    expect(binding.subjects).toEqual([expect.objectContaining({ kind: 'ServiceAccount', name: expect.stringMatching(/-controller$/) })]);
  });

  it('grants the egress gateway exactly pods list/watch, its CA Secret get and sandbox ConfigMap get/update by name, secrets and configmaps create', () => {
    const role = of(target, 'Role').find((r) => r.metadata.name === egressNames('oc').gateway) as Manifest & { rules: Array<{ apiGroups: string[]; resources: string[]; verbs: string[]; resourceNames?: string[] }> };
    expect(role.rules.map((r) => ({ ...r, verbs: [...r.verbs].sort() }))).toEqual([
      { apiGroups: [''], resources: ['pods'], verbs: ['list', 'watch'] },
      { apiGroups: [''], resources: ['secrets'], verbs: ['get'], resourceNames: ['oc-egress-ca'] },
      { apiGroups: [''], resources: ['secrets'], verbs: ['create'] },
      { apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'update'], resourceNames: ['oc-egress-sandbox'] },
      { apiGroups: [''], resources: ['configmaps'], verbs: ['create'] },
    ]);
    const binding = of(target, 'RoleBinding').find((b) => b.metadata.name === role.metadata.name) as unknown as { roleRef: { name: string }; subjects: Array<{ kind: string; name: string }> };
    expect(binding.roleRef.name).toBe(role.metadata.name);
    expect(binding.subjects).toEqual([expect.objectContaining({ kind: 'ServiceAccount', name: gatewayDeployment(target).spec!.template.spec!.serviceAccountName })]);
  });

  it('keeps credentials out of the sandboxes: only the egress gateway mounts the investigation kubeconfig, sandboxes get its dummy (C-EGR-1)', () => {
    const { podConfig } = controllerConfigOf(manifests());
    expect(podConfig.egressGateway).toBe(true);
    const secret = podConfig.kubeconfigSecret;
    const mountsSecret = (spec: { volumes?: Array<{ secret?: { secretName?: string }; projected?: unknown }> } | undefined): boolean =>
      (spec?.volumes ?? []).some((volume) => volume.secret?.secretName === secret || JSON.stringify(volume.projected ?? {}).includes(`"${secret}"`));
    const mounting = (of(target, 'Deployment') as unknown as V1Deployment[]).filter((d) => mountsSecret(d.spec!.template.spec)).map((d) => d.metadata!.name);
    expect(mounting).toEqual([egressNames('oc').gateway]);
    for (const pod of [buildSessionPod(podConfig, podConfig.instanceName, 's-1', new Date()), buildWarmPod(podConfig, 'warm-1', new Date())]) {
      expect(mountsSecret(pod.spec), `sandbox pod ${pod.metadata!.name}`).toBe(false);
      expect(JSON.stringify(pod)).not.toContain(`"${secret}"`);
      expect(JSON.stringify(pod)).toContain(egressNames('oc').sandboxConfigMap);
    }
  });

  it('carries the egress gateway: Deployment, Service, PDB, ServiceAccount, Role, RoleBinding, routes, both NetworkPolicies; the gate opens on its policies (C-EGR-6)', () => {
    const names = egressNames('oc');
    for (const kind of ['Deployment', 'Service', 'PodDisruptionBudget', 'ServiceAccount', 'Role', 'RoleBinding', 'NetworkPolicy']) {
      expect(of(target, kind).map((m) => m.metadata.name), kind).toContain(names.gateway);
    }
    expect(of(target, 'NetworkPolicy').map((m) => m.metadata.name)).toContain(names.sandboxPolicy);
    expect(of(target, 'ConfigMap').some((m) => m.metadata.name.startsWith(`${names.routesConfigMap}-`))).toBe(true);
    // The gate's own verdict on the rendered policies, with a ready gateway endpoint: no other policy re-opens egress.
    const readySlice = { endpoints: [{ addresses: ['10.0.0.9'], conditions: { ready: true } }] };
    expect(egressGateVerdict('oc', [readySlice], of(target, 'NetworkPolicy') as GateNetworkPolicy[])).toEqual({ open: true });
  });

  it('runs the server highly available (except dev), probed on /live and /health, bounded, behind the bearer (C-MCP-8)', () => {
    const server = serverDeployment(target);
    const container = server.spec!.template.spec!.containers[0]!;
    expect(server.spec!.replicas).toBe(target.endsWith('/dev') ? 1 : 2);
    expect(container.readinessProbe?.httpGet?.path).toBe('/health');
    expect(container.livenessProbe?.httpGet?.path).toBe('/live');
    expect(container.resources?.requests).toMatchObject({ cpu: expect.any(String), memory: expect.any(String) });
    expect(container.resources?.limits).toMatchObject({ cpu: expect.any(String), memory: expect.any(String) });
    expect(container.args).toEqual(expect.arrayContaining(['--address=0.0.0.0:8080', '--backend=kubernetes', expect.stringMatching(/^--auth-token-file=/)]));
    expect(container.env?.find((e) => e.name === 'CLI_MCP_ALLOWED_HOSTS')?.value).toMatch(/cli-mcp-oc-server\.\$\(POD_NAMESPACE\)\.svc/);
  });

  it('runs the controller leader-elected (2 replicas except dev) under its pod name, probed on /live and /health, bounded', () => {
    const controller = controllerDeployment(target);
    const container = controller.spec!.template.spec!.containers[0]!;
    expect(controller.spec!.replicas).toBe(target.endsWith('/dev') ? 1 : 2);
    expect(container.args).toEqual(expect.arrayContaining(['--address=0.0.0.0:8081', '--identity=$(POD_NAME)']));
    expect(container.env?.find((e) => e.name === 'POD_NAME')?.valueFrom?.fieldRef?.fieldPath).toBe('metadata.name');
    // /health fails only while the API cannot be used: a follower stays ready (docs/controller.md).
    expect(container.readinessProbe?.httpGet?.path).toBe('/health');
    expect(container.livenessProbe?.httpGet?.path).toBe('/live');
    expect(container.resources?.requests).toMatchObject({ cpu: expect.any(String), memory: expect.any(String) });
    expect(container.resources?.limits).toMatchObject({ cpu: expect.any(String), memory: expect.any(String) });
    expect(controller.spec!.template.spec!.enableServiceLinks).toBe(false);
  });

  it('fixes no UID or GID anywhere (OpenShift assigns them per namespace)', () => {
    const fixed = (of(target, 'Deployment') as unknown as V1Deployment[]).flatMap((deployment) => {
      const spec = deployment.spec!.template.spec!;
      return [spec.securityContext, ...spec.containers.map((c) => c.securityContext)].flatMap((context) =>
        (['runAsUser', 'runAsGroup', 'fsGroup'] as const).filter((field) => context !== undefined && field in context).map((field) => `${deployment.metadata!.name}: ${field}`),
      );
    });
    expect(fixed).toEqual([]);
  });

  it('bounds sandbox pods with a ResourceQuota', () => {
    const [quota] = of(target, 'ResourceQuota') as Array<Manifest & { spec: { hard: Record<string, string> } }>;
    expect(quota?.spec.hard).toMatchObject({ pods: expect.any(String), 'limits.memory': expect.any(String), 'requests.cpu': expect.any(String) });
  });
});

describeWhenReady('the offline schema check itself', KUBECTL_PROBLEM, () => {
  it('rejects a Deployment whose containerPort is not an integer', async () => {
    const deployment = structuredClone(serverDeployment('deploy/base')) as unknown as Manifest & { spec: { template: { spec: { containers: Array<{ ports: Array<{ containerPort: unknown }> }> } } } };
    deployment.spec.template.spec.containers[0]!.ports[0]!.containerPort = 'http';
    expect(await schemaProblem(deployment)).toMatch(/containerPort must be integer/);
  });
});

describeWhenReady('sandbox egress', KUBECTL_PROBLEM, () => {
  it('is denied by the base\'s sandbox policy; its egress policy lets sandboxes reach only the gateway (3128): no DNS (--sandbox-dns none)', () => {
    const base = of('deploy/base', 'NetworkPolicy').find((p) => p.metadata.name.endsWith('-sandbox')) as Manifest & { spec: { egress: unknown[]; policyTypes: string[] } };
    expect(base.spec.policyTypes).toContain('Egress');
    expect(base.spec.egress).toEqual([]);
    const allow = of('deploy/base', 'NetworkPolicy').find((p) => p.metadata.name === 'oc-egress-sandbox') as Manifest & { spec: { egress: Array<{ ports: Array<{ port: number }> }> } };
    expect(allow.spec.egress.flatMap((rule) => rule.ports.map((p) => p.port))).toEqual([3128]);
    expect(JSON.stringify(allow)).not.toContain('ipBlock');
  });
});

describe('the unknown-field check itself', () => {
  const deployment = (container: Record<string, unknown>, templateMetadata: Record<string, unknown> = { labels: { app: 'x' } }) => ({
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'x', labels: { 'any-label': 'is a map key, never a field' } },
    spec: { selector: { matchLabels: { app: 'x' } }, template: { metadata: templateMetadata, spec: { containers: [container] } } },
  });
  const good = { name: 'c', image: 'i', imagePullPolicy: 'Always', env: [{ name: 'A', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } }], resources: { limits: { cpu: '1' } } };

  it('passes a Deployment that only uses real fields, whatever its map keys', () => {
    expect(modelName('apps/v1', 'Deployment')).toBe('V1Deployment');
    expect(unknownFields(deployment(good), 'V1Deployment')).toEqual([]);
  });

  it('names every misspelt field with its path, deep in arrays and objects', () => {
    const typos = { ...good, imagePullPolcy: 'Always', env: [{ name: 'A', valueForm: {} }] };
    expect(unknownFields(deployment(typos, { lables: { app: 'x' } }), 'V1Deployment')).toEqual([
      '.spec.template.metadata.lables',
      '.spec.template.spec.containers[0].env[0].valueForm',
      '.spec.template.spec.containers[0].imagePullPolcy',
    ]);
  });

  it('knows CRDs have no built-in model', () => {
    expect(modelName('monitoring.coreos.com/v1', 'ServiceMonitor')).toBeUndefined();
  });
});
