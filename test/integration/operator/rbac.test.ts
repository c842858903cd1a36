/**
 * RBAC exactness of the operator (issue 21 item 4, C-OP-6): a full workload through the BUILT operator — an
 * instance made Ready, a claim (the pool refills, claimed-at is stamped), children changed behind its back and
 * restored, a spec change (server rolled, pool trimmed), the teardown — and every request it sent must be namespaced
 * and allowed by deploy/operator/role.yaml, and every verb the Role grants must have been used. The one grant no
 * request uses is `climcpinstances/finalizers update`: admission (OwnerReferencesPermissionEnforcement) checks it
 * when the operator sets blockOwnerDeletion; `get` of secrets and configmaps is held only because the egress
 * gateway's Role (spec.proxy) grants it, and RBAC refuses a Role granting more than its writer holds.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { LAST_ACTIVITY_ANNOTATION, SESSION_ID_LABEL, formatTimestamp } from '@cli-mcp/podspec';
import { CONFIG_MAPS, NETWORK_POLICIES, PODS, POD_DISRUPTION_BUDGETS, ROLE_BINDINGS, ROLES, SECRETS, SERVICE_ACCOUNTS, type KubeObject } from '@cli-mcp/testing';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { parse } from 'yaml';
import { NAMESPACE, operatorSkipReason, startOperatorStack, type OperatorStack } from './support/operator-stack.js';
import { describeWhenReady } from '../../support/prerequisites.js';

interface Rule { apiGroups: string[]; resources: string[]; verbs: string[] }
const ROLE = (parse(readFileSync(fileURLToPath(new URL('../../../deploy/operator/role.yaml', import.meta.url)), 'utf8')) as { rules: Rule[] }).rules;
const ADMISSION_ONLY = ['update climcpinstances/finalizers'];
// Held only so the egress gateway's Role the operator writes is within its own grants (RBAC escalation check).
const ESCALATION_ONLY = ['get secrets', 'get configmaps'];

let stack: OperatorStack;

describeWhenReady('RBAC discipline of the operator (deploy/operator/role.yaml)', operatorSkipReason, () => {
  beforeAll(async () => {
    stack = await startOperatorStack();
  }, 60_000);
  afterAll(async () => {
    await stack?.stop();
  });

  it('sends only requests the Role allows, in its namespace, and uses every verb it grants', async () => {
    stack.cluster.requests.clear();
    const operator = await stack.operator('op-rbac');
    stack.seedKubeconfig('rb');
    await stack.apply('rb', { sandbox: { warmPoolSize: 2, maxSessionAge: '1h' } });
    await stack.untilCondition('rb', 'Ready', 'True');

    // spec.proxy: the egress gateway's children (configmaps, poddisruptionbudgets) and the gate (C-EGR-6: list
    // endpointslices and networkpolicies), opened by a ready endpoint of the gateway Service.
    stack.seedKubeconfig('px');
    await stack.apply('px', { sandbox: { warmPoolSize: 1 }, proxy: { targets: [{ type: 'kubernetes' }, { type: 'allowlist', domains: ['api.example.com'] }] } });
    await stack.until(() => stack.cluster.store.get('poddisruptionbudgets', NAMESPACE, 'px-egress') !== undefined && stack.cluster.store.get('configmaps', NAMESPACE, 'px-egress-routes') !== undefined, 'the gateway children');
    stack.gatewayUp('px', '10.96.7.8');
    await stack.untilCondition('px', 'Ready', 'True', undefined, 40_000);

    // A claim: the pool refills and the claimed pod gets its claimed-at stamp (pods create, patch).
    const pool = () => stack.pods('rb', 'sandbox').filter((p) => p.metadata.labels?.[SESSION_ID_LABEL] === undefined);
    const claimed = pool()[0]!.metadata.name!;
    stack.cluster.api.patch(PODS, NAMESPACE, claimed, 'merge', { metadata: { labels: { [SESSION_ID_LABEL]: 's-1' }, annotations: { [LAST_ACTIVITY_ANNOTATION]: formatTimestamp(new Date()) } } });
    stack.cluster.api.create(SECRETS, NAMESPACE, { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'cli-mcp-auth-rb-s-1-x', labels: { 'cli-mcp.redhat.com/instance': 'rb', 'cli-mcp.redhat.com/component': 'sandbox', [SESSION_ID_LABEL]: 's-1' } }, stringData: { token: 't' } });
    await stack.until(() => pool().length === 2 && stack.cluster.store.get('pods', NAMESPACE, claimed)?.metadata.annotations?.['cli-mcp.redhat.com/claimed-at'] !== undefined, 'refill and claimed-at');

    // Children changed behind the operator's back are restored (update of each kind).
    const tamper: Array<[typeof SERVICE_ACCOUNTS, string, Record<string, unknown>]> = [
      [SERVICE_ACCOUNTS, 'cli-mcp-rb-sandbox', { automountServiceAccountToken: true }],
      [ROLES, 'cli-mcp-rb-server', { rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['*'] }] }],
      [ROLE_BINDINGS, 'cli-mcp-rb-server', { subjects: [{ kind: 'ServiceAccount', name: 'intruder', namespace: NAMESPACE }] }],
      [NETWORK_POLICIES, 'cli-mcp-rb-sandbox', { spec: { podSelector: {}, policyTypes: ['Ingress'], ingress: [{}] } }],
      [CONFIG_MAPS, 'px-egress-routes', { data: { 'routes.json': '{"allow":["evil.example:443"]}\n' } }],
      [POD_DISRUPTION_BUDGETS, 'px-egress', { spec: { minAvailable: 0 } }],
    ];
    for (const [resource, name, patch] of tamper) stack.cluster.api.patch(resource, NAMESPACE, name, 'merge', patch);
    stack.cluster.api.patch(stack.cluster.registry.find('', 'v1', 'services')!, NAMESPACE, 'cli-mcp-rb-server', 'merge', { spec: { selector: { app: 'elsewhere' } } });
    const checks: Array<[string, string, (o: KubeObject) => boolean]> = [
      ['serviceaccounts', 'cli-mcp-rb-sandbox', (o) => o['automountServiceAccountToken'] === false],
      ['roles', 'cli-mcp-rb-server', (o) => !JSON.stringify(o['rules']).includes('"*"')],
      ['rolebindings', 'cli-mcp-rb-server', (o) => !JSON.stringify(o['subjects']).includes('intruder')],
      ['networkpolicies', 'cli-mcp-rb-sandbox', (o) => JSON.stringify(o['spec']).includes('Egress')],
      ['services', 'cli-mcp-rb-server', (o) => !JSON.stringify(o['spec']).includes('elsewhere')],
      ['configmaps', 'px-egress-routes', (o) => !JSON.stringify(o['data']).includes('evil')],
      ['poddisruptionbudgets', 'px-egress', (o) => (o['spec'] as { minAvailable?: number }).minAvailable === 1],
    ];
    const unrestored = () => checks.filter(([resource, name, check]) => !check(stack.cluster.store.get(resource, NAMESPACE, name)!)).map(([r, n]) => `${r}/${n}`);
    await stack.until(() => unrestored().length === 0, () => `every tampered child restored; not: ${unrestored().join(', ')}\n${operator.logs().filter((l) => l.level !== 30).map((l) => JSON.stringify(l)).join('\n')}`);

    // A spec change: the server rolls (deployments update) and the pool shrinks (pods get, delete).
    await stack.apply('rb', { replicas: 2, sandbox: { warmPoolSize: 1, maxSessionAge: '1h' } });
    await stack.until(() => pool().length === 1, 'the pool trimmed');
    await stack.untilCondition('rb', 'Ready', 'True');

    // Teardown: deployments patch, pods and secrets delete, the finalizer removed (climcpinstances patch).
    await stack.kubectl(['delete', 'climcpinstance', 'rb', '--wait=false']);
    await stack.kubectl(['delete', 'climcpinstance', 'px', '--wait=false']);
    await stack.until(() => stack.instance('rb') === undefined && stack.instance('px') === undefined, 'the CRs gone');
    await operator.stop();

    const seen = new Set<string>();
    const records = stack.cluster.requests.entries().filter((r) => !r.userAgent?.startsWith('kubectl'));
    expect(records.length).toBeGreaterThan(20);
    for (const record of records) {
      const what = `${record.method} ${record.path}`;
      expect(record.namespace, what).toBe(NAMESPACE);
      const group = /^\/apis\/([^/]+)\//.exec(record.path)?.[1] ?? '';
      const allowed = ROLE.some((rule) => rule.apiGroups.includes(group) && rule.resources.includes(record.resource!) && rule.verbs.includes(record.verb!));
      expect(allowed, what).toBe(true);
      seen.add(`${record.verb} ${record.resource}`);
    }
    const granted = ROLE.flatMap((rule) => rule.resources.flatMap((resource) => rule.verbs.map((verb) => `${verb} ${resource}`)));
    expect([...seen].sort()).toEqual(granted.filter((g) => !ADMISSION_ONLY.includes(g) && !ESCALATION_ONLY.includes(g)).sort());
  }, 180_000);
});
