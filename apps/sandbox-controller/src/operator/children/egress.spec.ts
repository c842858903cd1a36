import { describe, expect, it } from 'vitest';
import { egressGateVerdict, type GateNetworkPolicy } from '@cli-mcp/kube';
import { EGRESS_CONFIG_HASH_ANNOTATION, buildWarmPod } from '@cli-mcp/podspec';
import type { CliMcpInstance } from '../api/climcpinstance.js';
import { resolveInstance, type ResolvedInstance } from '../spec/resolve-instance.js';
import { accessChildren } from './access-children.js';
import { MANAGED_BY, MANAGED_BY_LABEL } from './child-names.js';
import type { DesiredChild } from './desired-child.js';
import { egressRoutes, planEgress, type EgressInputs } from './egress.js';
import { serverArgs } from './server-args.js';

const DEFAULTS = { namespace: 'team', serverImage: 'quay.io/x/server:1', sandboxImage: 'quay.io/x/sandbox:1', maxTimeoutSeconds: 300, defaultTimeoutSeconds: 60 };
const OWNER = { name: 'oc', uid: 'u1' };
const INPUTS: EgressInputs = { owner: OWNER, image: 'quay.io/x/egress:1', kubeconfigVersion: 'k1/7' };
const PROXY = { targets: [{ type: 'kubernetes' as const, secretName: 'admin-kc' }, { type: 'allowlist' as const, domains: ['Api.GitHub.com', 'registry.example:5000', '[2001:db8::1]:8443'] }] };

function instance(spec: CliMcpInstance['spec'] = {}): ResolvedInstance {
  const result = resolveInstance({ metadata: { name: 'oc' }, spec }, DEFAULTS);
  if (!result.ok) throw new Error(result.errors.join('; '));
  return result.instance;
}

function gatewayChildren(i: ResolvedInstance, inputs = INPUTS): readonly DesiredChild[] {
  const plan = planEgress(i, inputs);
  if (plan.kind !== 'gateway') throw new Error(`expected a gateway, got ${plan.kind}`);
  return plan.children;
}

const find = (children: readonly DesiredChild[], kind: string, name: string) => children.find((c) => c.resource.kind === kind && c.object.metadata?.name === name)?.object as Record<string, any>;

describe(planEgress.name, () => {
  it('plans nothing without spec.proxy, and refuses spec.proxy when the operator has no egress image (fail closed)', () => {
    expect(planEgress(instance(), INPUTS)).toEqual({ kind: 'none' });
    expect(planEgress(instance({ proxy: PROXY }), { ...INPUTS, image: undefined })).toMatchObject({ kind: 'refused', message: expect.stringContaining('--egress-image') });
  });

  it('renders the gateway: every child owned by the CR and labelled for the operator\'s informers', () => {
    const children = gatewayChildren(instance({ proxy: PROXY }));
    expect(children.map((c) => `${c.resource.kind}/${c.object.metadata?.name}`).sort()).toEqual([
      'ConfigMap/oc-egress-routes', 'Deployment/oc-egress', 'NetworkPolicy/oc-egress', 'NetworkPolicy/oc-egress-sandbox', 'PodDisruptionBudget/oc-egress',
      'Role/oc-egress', 'RoleBinding/oc-egress', 'Service/oc-egress', 'ServiceAccount/oc-egress',
    ]);
    for (const child of children) {
      expect(child.object.metadata?.ownerReferences).toEqual([expect.objectContaining({ uid: 'u1', kind: 'CliMcpInstance', controller: true })]);
      expect(child.object.metadata?.labels).toMatchObject({ [MANAGED_BY_LABEL]: MANAGED_BY, 'cli-mcp.redhat.com/instance': 'oc', 'cli-mcp.redhat.com/component': 'egress-gateway' });
    }
    const deployment = find(children, 'Deployment', 'oc-egress');
    expect(deployment.spec.template.spec.containers[0].image).toBe('quay.io/x/egress:1');
    // The kubernetes target's Secret is the gateway's, and only the gateway's.
    expect(deployment.spec.template.spec.volumes).toContainEqual({ name: 'kubeconfig', secret: { secretName: 'admin-kc' } });
  });

  it('turns allowlist domains into exact host:port routes, 443 when no port is written', () => {
    expect(egressRoutes(PROXY).allow).toEqual(['api.github.com:443', 'registry.example:5000', '[2001:db8::1]:8443']);
    const routes = find(gatewayChildren(instance({ proxy: PROXY })), 'ConfigMap', 'oc-egress-routes');
    expect(JSON.parse(routes.data['routes.json'])).toEqual({ allow: ['[2001:db8::1]:8443', 'api.github.com:443', 'registry.example:5000'] });
  });

  it('rolls the gateway when the routes or the kubeconfig Secret change', () => {
    const hash = (i: ResolvedInstance, inputs = INPUTS) => find(gatewayChildren(i, inputs), 'Deployment', 'oc-egress').spec.template.metadata.annotations[EGRESS_CONFIG_HASH_ANNOTATION] as string;
    const base = hash(instance({ proxy: PROXY }));
    expect(hash(instance({ proxy: PROXY }))).toBe(base);
    expect(hash(instance({ proxy: PROXY }), { ...INPUTS, kubeconfigVersion: 'k1/8' })).not.toBe(base);
    expect(hash(instance({ proxy: { targets: [...PROXY.targets, { type: 'allowlist', domains: ['pypi.org'] }] } }))).not.toBe(base);
  });
});

describe('spec.proxy on the rest of the instance', () => {
  it('gives the server --egress-gateway and the gate\'s reads, and sandbox pods the egress config without the Secret', () => {
    const i = instance({ proxy: PROXY });
    expect(serverArgs(i, 'cli-mcp-oc-server')).toContain('--egress-gateway');
    expect(serverArgs(instance(), 'cli-mcp-oc-server')).not.toContain('--egress-gateway');
    const role = find(accessChildren(i, OWNER), 'Role', 'cli-mcp-oc-server');
    expect(role.rules).toContainEqual({ apiGroups: ['discovery.k8s.io'], resources: ['endpointslices'], verbs: ['list'] });
    expect(role.rules).toContainEqual({ apiGroups: ['networking.k8s.io'], resources: ['networkpolicies'], verbs: ['list'] });
    expect(i.podConfig.kubeconfigSecret).toBe('admin-kc');
    const pod = JSON.stringify(buildWarmPod(i.podConfig, 'cli-mcp-oc-pool-0001020304', new Date(0)));
    expect(pod).toContain('oc-egress-sandbox');
    expect(pod).not.toContain('admin-kc');
  });

  it('spec.proxy.sandboxDns: none by default (server --sandbox-dns=none, the Service get, no DNS rule), cluster on request', () => {
    const sandboxPolicy = (i: ResolvedInstance) => find(gatewayChildren(i), 'NetworkPolicy', 'oc-egress-sandbox');
    const serviceGet = { apiGroups: [''], resources: ['services'], resourceNames: ['oc-egress'], verbs: ['get'] };

    const none = instance({ proxy: PROXY });
    expect(none.podConfig.sandboxDns).toBe('none');
    expect(serverArgs(none, 'cli-mcp-oc-server')).toContain('--sandbox-dns=none');
    expect(find(accessChildren(none, OWNER), 'Role', 'cli-mcp-oc-server').rules).toContainEqual(serviceGet);
    expect(sandboxPolicy(none).spec.egress).toHaveLength(1);
    expect(buildWarmPod(none.podConfig, 'cli-mcp-oc-pool-0001020304', new Date(0)).spec?.dnsPolicy).toBe('None');

    const cluster = instance({ proxy: { ...PROXY, sandboxDns: 'cluster' } });
    expect(serverArgs(cluster, 'cli-mcp-oc-server')).toContain('--sandbox-dns=cluster');
    expect(find(accessChildren(cluster, OWNER), 'Role', 'cli-mcp-oc-server').rules).not.toContainEqual(serviceGet);
    expect(JSON.stringify(sandboxPolicy(cluster).spec.egress)).toContain('kube-dns');
    expect(buildWarmPod(cluster.podConfig, 'cli-mcp-oc-pool-0001020304', new Date(0)).spec?.dnsPolicy).toBeUndefined();

    const bad = resolveInstance({ metadata: { name: 'oc' }, spec: { proxy: { ...PROXY, sandboxDns: 'off' } } }, DEFAULTS);
    expect(bad.ok ? [] : bad.errors).toEqual(['spec.proxy.sandboxDns must be none or cluster (got "off")']);
  });

  it('leaves the gate open on the operator\'s own policies: only the gateway\'s sandbox policy grants sandbox egress (C-EGR-6)', () => {
    const ready = [{ endpoints: [{ addresses: ['10.0.0.9'], conditions: { ready: true } }] }];
    const policies = (i: ResolvedInstance) =>
      [...accessChildren(i, OWNER), ...gatewayChildren(i)].filter((c) => c.resource.kind === 'NetworkPolicy').map((c) => c.object as unknown as GateNetworkPolicy);
    expect(egressGateVerdict('oc', ready, policies(instance({ proxy: PROXY })))).toEqual({ open: true });
    // Without spec.proxy the instance's sandbox policy grants DNS and the API server: with the gateway's policies
    // added it would shut the gate — the narrowing above is what keeps it open.
    const unnarrowed = [...accessChildren(instance(), OWNER), ...gatewayChildren(instance({ proxy: PROXY }))].filter((c) => c.resource.kind === 'NetworkPolicy').map((c) => c.object as unknown as GateNetworkPolicy);
    expect(egressGateVerdict('oc', ready, unnarrowed)).toMatchObject({ open: false, reasons: [expect.stringContaining('cli-mcp-oc-sandbox')] });
  });
});
