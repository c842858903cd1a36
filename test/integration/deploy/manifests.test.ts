/**
 * C-SHIP-2/3 on the rendered manifests: `kubectl kustomize` renders the base and every overlay; each object
 * validates offline against the Kubernetes schemas; selectors match the labels the pods really carry (server pods
 * from the Deployment, sandbox pods from libs/podspec); every pod template passes the restricted Pod Security
 * Standard; RBAC is exactly C-K8S-10 (+ leases get) for the server and the controller's for it; the server Deployment is highly available and probed on /live and /health.
 */
import type { V1Deployment, V1PodTemplateSpec } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { buildSessionPod, buildWarmPod, validateSandboxPodConfig } from '@cli-mcp/podspec';
import { checkRestrictedPodSecurity } from '../../../libs/podspec/src/testing/restricted-pss.js';
import { KUBECTL, kustomizeTargets, render, schemaProblem, selects, type LabelSelector, type Manifest } from './support/rendered.js';

if (!KUBECTL) console.warn('skipping deploy manifest tests: kubectl is not installed (needed for kustomize)');
const skip = !KUBECTL && process.env['CI'] !== 'true';

const targets = kustomizeTargets();
const rendered = new Map(KUBECTL ? targets.map((target) => [target, render(target)]) : []);
const of = (target: string, kind: string): Manifest[] => (rendered.get(target) ?? []).filter((m) => m.kind === kind);
const serverDeployment = (target: string): V1Deployment => of(target, 'Deployment').find((d) => d.metadata.name.endsWith('-server')) as unknown as V1Deployment;
const argValue = (deployment: V1Deployment, flag: string): string | undefined =>
  deployment.spec!.template.spec!.containers[0]!.args?.find((arg) => arg.startsWith(`${flag}=`))?.slice(flag.length + 1);

/** The labels of the sandbox pods this server creates and claims (session and warm variants), from libs/podspec. */
function sandboxPods(target: string): Array<{ labels: Record<string, string>; port: number }> {
  const deployment = serverDeployment(target);
  const config = validateSandboxPodConfig({
    namespace: 'ns', instanceName: argValue(deployment, '--instance-name'), image: 'sandbox', serviceAccountName: 'sa', kubeconfigSecret: 'kc',
  });
  if (!config.ok) throw new Error(config.errors.join('; '));
  return [buildSessionPod(config.config, config.config.instanceName, 's-1', new Date()), buildWarmPod(config.config, 'warm-1', new Date())].map((pod) => ({
    labels: pod.metadata!.labels!,
    port: pod.spec!.containers[0]!.ports![0]!.containerPort,
  }));
}

describe.skipIf(skip).each(targets)('%s', (target) => {
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

  it('every pod template passes the restricted Pod Security Standard', () => {
    for (const deployment of of(target, 'Deployment') as unknown as V1Deployment[]) {
      const template = deployment.spec!.template as V1PodTemplateSpec;
      expect(checkRestrictedPodSecurity({ metadata: template.metadata, spec: template.spec }), deployment.metadata!.name).toEqual([]);
    }
  });

  it('selectors match the labels pods really carry: Deployment, Service, PDB, spread, NetworkPolicies, ServiceMonitor', () => {
    const server = serverDeployment(target);
    const serverLabels = server.spec!.template.metadata!.labels!;
    const sandboxes = sandboxPods(target);
    expect(selects(server.spec!.selector as LabelSelector, serverLabels)).toBe(true);
    for (const constraint of server.spec!.template.spec!.topologySpreadConstraints ?? []) expect(selects(constraint.labelSelector as LabelSelector, serverLabels)).toBe(true);
    const service = of(target, 'Service')[0] as Manifest & { spec: { selector: Record<string, string>; ports: Array<{ name: string; targetPort: string }> } };
    expect(selects({ matchLabels: service.spec.selector }, serverLabels)).toBe(true);
    expect(sandboxes.some((pod) => selects({ matchLabels: service.spec.selector }, pod.labels))).toBe(false);
    const containerPorts = server.spec!.template.spec!.containers[0]!.ports!.map((p) => p.name);
    for (const port of service.spec.ports) expect(containerPorts).toContain(port.targetPort);
    for (const pdb of of(target, 'PodDisruptionBudget') as Array<Manifest & { spec: { selector: LabelSelector } }>) expect(selects(pdb.spec.selector, serverLabels)).toBe(true);

    const policies = of(target, 'NetworkPolicy') as Array<Manifest & { spec: { podSelector: LabelSelector; ingress?: Array<{ from?: Array<{ podSelector?: LabelSelector; namespaceSelector?: LabelSelector }>; ports?: Array<{ port: number }> }> } }>;
    const sandboxPolicy = policies.find((p) => p.metadata.name.endsWith('-sandbox'))!;
    for (const pod of sandboxes) expect(selects(sandboxPolicy.spec.podSelector, pod.labels)).toBe(true);
    expect(selects(sandboxPolicy.spec.podSelector, serverLabels)).toBe(false);
    const [ingress] = sandboxPolicy.spec.ingress!;
    expect(sandboxPolicy.spec.ingress).toHaveLength(1);
    expect(ingress!.from!.every((peer) => peer.namespaceSelector === undefined && selects(peer.podSelector, serverLabels))).toBe(true);
    expect(ingress!.ports!.map((p) => p.port)).toEqual([...new Set(sandboxes.map((pod) => pod.port))]);
    for (const policy of policies.filter((p) => p !== sandboxPolicy)) {
      const selectsServer = selects(policy.spec.podSelector, serverLabels);
      const selectsSandboxes = sandboxes.every((pod) => selects(policy.spec.podSelector, pod.labels));
      expect(selectsServer !== selectsSandboxes, `${policy.metadata.name} selects exactly one kind of pod`).toBe(true);
    }
    for (const monitor of of(target, 'ServiceMonitor') as Array<Manifest & { spec: { selector: LabelSelector; endpoints: Array<{ port: string }> } }>) {
      expect(selects(monitor.spec.selector, service.metadata.labels ?? {})).toBe(true);
      for (const endpoint of monitor.spec.endpoints) expect(service.spec.ports.map((p) => p.name)).toContain(endpoint.port);
    }
    for (const route of of(target, 'Route') as Array<Manifest & { spec: { to: { kind: string; name: string }; port: { targetPort: string } } }>) {
      expect(route.spec.to).toMatchObject({ kind: 'Service', name: service.metadata.name });
      expect(service.spec.ports.map((p) => p.name)).toContain(route.spec.port.targetPort);
    }
  });

  it('references only objects it defines: service accounts, roles, the sandbox account the server names', () => {
    const accounts = of(target, 'ServiceAccount').map((sa) => sa.metadata.name);
    for (const deployment of of(target, 'Deployment') as unknown as V1Deployment[]) expect(accounts).toContain(deployment.spec!.template.spec!.serviceAccountName);
    expect(accounts).toContain(argValue(serverDeployment(target), '--sandbox-service-account'));
    const roles = of(target, 'Role').map((role) => role.metadata.name);
    for (const binding of of(target, 'RoleBinding') as Array<Manifest & { roleRef: { kind: string; name: string }; subjects: Array<{ kind: string; name: string }> }>) {
      expect(binding.roleRef.kind).toBe('Role');
      expect(roles).toContain(binding.roleRef.name);
      for (const subject of binding.subjects) expect(accounts).toContain(subject.name);
    }
    const sandboxAccount = of(target, 'ServiceAccount').find((sa) => sa.metadata.name === argValue(serverDeployment(target), '--sandbox-service-account')) as Manifest & { automountServiceAccountToken?: boolean };
    expect(sandboxAccount.automountServiceAccountToken).toBe(false);
    const bound = (of(target, 'RoleBinding') as Array<Manifest & { subjects: Array<{ name: string }> }>).flatMap((b) => b.subjects.map((s) => s.name));
    expect(bound).not.toContain(sandboxAccount.metadata.name);
  });

  const rulesOf = (suffix: string) =>
    (of(target, 'Role').find((r) => r.metadata.name.endsWith(suffix)) as Manifest & { rules: Array<{ apiGroups: string[]; resources: string[]; verbs: string[] }> }).rules.map(
      (r) => ({ groups: r.apiGroups, resources: [...r.resources].sort(), verbs: [...r.verbs].sort() }),
    );

  it('grants the server exactly the C-K8S-10 verbs plus leases get (controller status in /health), nothing cluster-scoped', () => {
    expect(rulesOf('-server')).toEqual([
      { groups: [''], resources: ['pods'], verbs: ['create', 'delete', 'get', 'list', 'patch', 'watch'] },
      { groups: [''], resources: ['secrets'], verbs: ['create', 'delete'] },
      { groups: ['coordination.k8s.io'], resources: ['leases'], verbs: ['get'] },
    ]);
    expect(of(target, 'ClusterRole')).toHaveLength(0);
    expect(of(target, 'ClusterRoleBinding')).toHaveLength(0);
  });

  it('grants the controller exactly pods get/list/watch/create/delete/patch, secrets list/delete, leases get/create/update', () => {
    expect(rulesOf('-controller')).toEqual([
      { groups: [''], resources: ['pods'], verbs: ['create', 'delete', 'get', 'list', 'patch', 'watch'] },
      { groups: [''], resources: ['secrets'], verbs: ['delete', 'list'] },
      { groups: ['coordination.k8s.io'], resources: ['leases'], verbs: ['create', 'get', 'update'] },
    ]);
    const binding = of(target, 'RoleBinding').find((b) => b.metadata.name.endsWith('-controller')) as unknown as { roleRef: { name: string }; subjects: Array<{ kind: string; name: string }> };
    expect(binding.roleRef.name).toMatch(/-controller$/);
    expect(binding.subjects).toEqual([expect.objectContaining({ kind: 'ServiceAccount', name: expect.stringMatching(/-controller$/) })]);
  });

  it('runs the server highly available (except dev), probed on /live and /health, bounded, behind the bearer (C-MCP-8)', () => {
    const server = serverDeployment(target);
    const container = server.spec!.template.spec!.containers[0]!;
    expect(server.spec!.replicas).toBe(target.endsWith('/dev') ? 1 : 2);
    expect(of(target, 'PodDisruptionBudget')).toHaveLength(1);
    expect(container.readinessProbe?.httpGet?.path).toBe('/health');
    expect(container.livenessProbe?.httpGet?.path).toBe('/live');
    expect(container.resources?.requests).toMatchObject({ cpu: expect.any(String), memory: expect.any(String) });
    expect(container.resources?.limits).toMatchObject({ cpu: expect.any(String), memory: expect.any(String) });
    expect(container.args).toEqual(expect.arrayContaining(['--address=0.0.0.0:8080', '--backend=kubernetes', expect.stringMatching(/^--auth-token-file=/)]));
    expect(container.env?.find((e) => e.name === 'CLI_MCP_ALLOWED_HOSTS')?.value).toMatch(/cli-mcp-oc-server\.\$\(POD_NAMESPACE\)\.svc/);
  });

  it('bounds sandbox pods with a ResourceQuota', () => {
    const [quota] = of(target, 'ResourceQuota') as Array<Manifest & { spec: { hard: Record<string, string> } }>;
    expect(quota?.spec.hard).toMatchObject({ pods: expect.any(String), 'limits.memory': expect.any(String), 'requests.cpu': expect.any(String) });
  });
});

describe.skipIf(skip)('the offline schema check itself', () => {
  it('rejects a Deployment whose containerPort is not an integer', async () => {
    const deployment = structuredClone(serverDeployment('deploy/base')) as unknown as Manifest & { spec: { template: { spec: { containers: Array<{ ports: Array<{ containerPort: unknown }> }> } } } };
    deployment.spec.template.spec.containers[0]!.ports[0]!.containerPort = 'http';
    expect(await schemaProblem(deployment)).toMatch(/containerPort must be integer/);
  });
});

describe.skipIf(skip)('sandbox egress', () => {
  it('is denied by default and allowed to DNS and the API (443/6443) by the investigation-egress overlay', () => {
    const base = of('deploy/base', 'NetworkPolicy').find((p) => p.metadata.name.endsWith('-sandbox')) as Manifest & { spec: { egress: unknown[]; policyTypes: string[] } };
    expect(base.spec.policyTypes).toContain('Egress');
    expect(base.spec.egress).toEqual([]);
    const allow = of('deploy/overlays/investigation-egress', 'NetworkPolicy').find((p) => p.metadata.name.endsWith('-sandbox-egress')) as Manifest & { spec: { egress: Array<{ ports: Array<{ port: number }> }> } };
    expect(allow.spec.egress.flatMap((rule) => rule.ports.map((p) => p.port)).sort((a, b) => a - b)).toEqual([53, 53, 443, 5353, 5353, 6443]);
  });
});
