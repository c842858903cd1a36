/**
 * issue 21 item 5, through the BUILT operator (`sandbox-controller --operator`) on the fake cluster with the CRD
 * applied by kubectl and real sandbox agents: a CR becomes every child and a Ready instance with its pool; invalid
 * CRs are refused with the CEL message; a deleted HMAC Secret is made again and rolls the server; a new sandbox
 * image replaces the pool and keeps claimed pods; two instances in one namespace keep apart; deleting a CR tears it
 * down in order and leaves nothing.
 */
import { RuntimeCa } from '@cli-mcp/egress';
import { EGRESS_CONFIG_HASH_ANNOTATION, LAST_ACTIVITY_ANNOTATION, SESSION_ID_LABEL, SPEC_HASH_ANNOTATION, formatTimestamp } from '@cli-mcp/podspec';
import { NETWORK_POLICIES, PODS, SECRETS, eventually, type KubeObject } from '@cli-mcp/testing';
import type { ControllerProcess } from '../controller/support/controller-process.js';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { CONFIG_HASH_ANNOTATION } from '../../../apps/sandbox-controller/src/operator/children/server-deployment.js';
import { EGRESS_IMAGE, KUBECONFIG_TEXT, NAMESPACE, SANDBOX_IMAGE, SERVER_IMAGE, operatorSkipReason, startOperatorStack, type OperatorStack } from './support/operator-stack.js';
import { describeWhenReady } from '../../support/prerequisites.js';

let stack: OperatorStack;
let operator: ControllerProcess;

type Owned = KubeObject & { metadata: { ownerReferences?: Array<{ kind: string; name: string; uid: string; controller?: boolean }> } };
const CHILDREN: Array<[string, string]> = [
  ['deployments', 'cli-mcp-NAME-server'], ['services', 'cli-mcp-NAME-server'], ['serviceaccounts', 'cli-mcp-NAME-server'], ['serviceaccounts', 'cli-mcp-NAME-sandbox'],
  ['roles', 'cli-mcp-NAME-server'], ['rolebindings', 'cli-mcp-NAME-server'], ['networkpolicies', 'cli-mcp-NAME-sandbox'], ['networkpolicies', 'cli-mcp-NAME-server'],
  ['secrets', 'cli-mcp-NAME-hmac'], ['secrets', 'cli-mcp-NAME-auth'],
];
const children = (name: string) => CHILDREN.map(([resource, pattern]) => [resource, pattern.replace('NAME', name)] as const);
const get = (resource: string, name: string) => stack.cluster.store.get(resource, NAMESPACE, name) as Owned | undefined;
const readyPool = (name: string) => stack.pods(name, 'sandbox').filter((p) => p.metadata.labels?.[SESSION_ID_LABEL] === undefined && JSON.stringify(p['status'] ?? {}).includes('"type":"Ready","status":"True"'));
const status = (name: string) => (stack.instance(name)?.['status'] ?? {}) as { warmPoolReady?: number; warmPoolDesired?: number; resolvedSandboxImage?: string; observedGeneration?: number };

async function readyInstance(name: string, spec: Record<string, unknown>): Promise<void> {
  stack.seedKubeconfig(name);
  await stack.apply(name, spec);
  await stack.untilCondition(name, 'Ready', 'True');
}

describeWhenReady('sandbox-controller --operator (built) on the fake cluster', operatorSkipReason, () => {
  beforeAll(async () => {
    stack = await startOperatorStack();
    operator = await stack.operator('op-a');
  }, 60_000);
  afterAll(async () => {
    await stack?.stop();
  });

  it('turns a CR into every child (owned by it), a Ready pool and Ready=True', async () => {
    stack.seedKubeconfig('oc');
    expect(await stack.apply('oc', { replicas: 2, sandbox: { warmPoolSize: 2 } })).toContain('climcpinstance.cli-mcp.redhat.com/oc created');
    await stack.untilCondition('oc', 'Ready', 'True');
    const cr = stack.instance('oc')!;
    for (const [resource, name] of children('oc')) {
      const child = get(resource, name);
      expect(child, `${resource}/${name}`).toBeDefined();
      expect(child!.metadata.ownerReferences, `${resource}/${name}`).toEqual([expect.objectContaining({ kind: 'CliMcpInstance', name: 'oc', uid: cr.metadata.uid, controller: true })]);
    }
    expect(cr.metadata.finalizers).toEqual(['cli-mcp.redhat.com/finalizer']);
    expect(readyPool('oc')).toHaveLength(2);
    expect(status('oc')).toMatchObject({ warmPoolReady: 2, warmPoolDesired: 2, resolvedSandboxImage: SANDBOX_IMAGE, observedGeneration: 1 });
    const deployment = get('deployments', 'cli-mcp-oc-server') as Owned & { spec: { replicas: number; template: { spec: { containers: Array<{ image: string; args: string[] }> } } } };
    expect(deployment.spec.replicas).toBe(2);
    expect(deployment.spec.template.spec.containers[0]).toMatchObject({ image: SERVER_IMAGE, args: expect.arrayContaining(['--instance-name=oc', `--namespace=${NAMESPACE}`, `--sandbox-image=${SANDBOX_IMAGE}`]) });
    // An Event for each condition change, the last one saying Ready.
    const events = () => stack.cluster.store.list('events', NAMESPACE).filter((e) => (e['involvedObject'] as { name: string }).name === 'oc');
    await stack.until(() => events().filter((e) => e['reason'] === 'Ready').length === 2, 'Events of both conditions turning True');
    expect(events().filter((e) => e['type'] === 'Warning').map((e) => e['reason'])).toEqual(expect.arrayContaining(['WarmPoolNotReady']));
    expect(events().every((e) => (e['involvedObject'] as { uid: string }).uid === cr.metadata.uid)).toBe(true);
    // kubectl sees what an admin reads: the printer columns and the conditions.
    expect(await stack.kubectl(['get', 'climcpinstances', '-o', 'wide'])).toMatch(/^oc\s+True\s+Ready\s+2\s+2\s+2\s+quay\.io\/example\/cli-mcp-sandbox:test\s/m);
  });

  it('refuses invalid CRs with the CRD\'s CEL message', async () => {
    await expect(stack.apply('x'.repeat(45), {})).rejects.toThrow(/metadata\.name must be at most 44 characters/);
    await expect(stack.apply('two-kube', { proxy: { targets: [{ type: 'kubernetes' }, { type: 'kubernetes', secretName: 'other' }] } })).rejects.toThrow(/at most one kubernetes target/);
    await expect(stack.apply('bad-env', { sandbox: { env: [{ name: 'KUBECONFIG', value: '/tmp/stolen' }] } })).rejects.toThrow(/must not set KUBECONFIG, HOME, SANDBOX_AUTH_TOKEN or a proxy variable/);
    await expect(stack.apply('wildcard', { proxy: { targets: [{ type: 'allowlist', domains: ['*.example.com'] }] } })).rejects.toThrow(/literal host/);
    expect(['x'.repeat(45), 'two-kube', 'bad-env', 'wildcard'].map((name) => stack.instance(name))).toEqual([undefined, undefined, undefined, undefined]);
  });

  it('says why it is not Ready: SecretsNotFound, KubeconfigInvalid, then Ready once the admin fixes the Secret', async () => {
    await stack.apply('admin', { sandbox: { warmPoolSize: 1 } });
    await stack.untilCondition('admin', 'Ready', 'False', 'SecretsNotFound');
    expect(stack.pods('admin', 'sandbox')).toEqual([]); // the pool waits: its pods could not mount the Secret
    stack.cluster.api.create(SECRETS, NAMESPACE, { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'cli-mcp-admin-kubeconfig' }, stringData: { kubeconfig: 'apiVersion: v1\nkind: Config\n' } });
    await stack.untilCondition('admin', 'Ready', 'False', 'KubeconfigInvalid');
    stack.cluster.api.delete(SECRETS, NAMESPACE, 'cli-mcp-admin-kubeconfig');
    stack.seedKubeconfig('admin');
    await stack.untilCondition('admin', 'Ready', 'True');
  });

  it('deploys the egress gateway for spec.proxy: owned gateway children, --egress-gateway, no sandbox mounts the kubeconfig; EgressNotEnforced until the gateway has a ready endpoint', async () => {
    const KUBECONFIG = 'proxied-admin-kc';
    stack.cluster.api.create(SECRETS, NAMESPACE, { apiVersion: 'v1', kind: 'Secret', metadata: { name: KUBECONFIG }, stringData: { kubeconfig: KUBECONFIG_TEXT(stack.cluster.url) } });
    await stack.apply('proxied', { sandbox: { warmPoolSize: 2 }, proxy: { targets: [{ type: 'kubernetes', secretName: KUBECONFIG }, { type: 'allowlist', domains: ['api.example.com', 'pypi.org:8443'] }] } });
    await stack.untilCondition('proxied', 'Ready', 'False', 'EgressNotEnforced');
    const cr = stack.instance('proxied')!;
    const gatewayChildren: Array<[string, string]> = [
      ['deployments', 'proxied-egress'], ['services', 'proxied-egress'], ['poddisruptionbudgets', 'proxied-egress'], ['configmaps', 'proxied-egress-routes'],
      ['serviceaccounts', 'proxied-egress'], ['roles', 'proxied-egress'], ['rolebindings', 'proxied-egress'], ['networkpolicies', 'proxied-egress'], ['networkpolicies', 'proxied-egress-sandbox'],
    ];
    for (const [resource, name] of gatewayChildren) {
      await stack.until(() => get(resource, name) !== undefined, `${resource}/${name}`);
      expect(get(resource, name)!.metadata.ownerReferences, `${resource}/${name}`).toEqual([expect.objectContaining({ kind: 'CliMcpInstance', name: 'proxied', uid: cr.metadata.uid, controller: true })]);
    }
    const condition = () => ((stack.instance('proxied')!['status'] as { conditions: Array<{ type: string; message: string }> }).conditions.find((c) => c.type === 'Ready')!.message);
    expect(condition()).toContain('Service proxied-egress has no ready endpoints');
    expect(JSON.parse((get('configmaps', 'proxied-egress-routes') as unknown as { data: Record<string, string> }).data['routes.json']!)).toEqual({ allow: ['api.example.com:443', 'pypi.org:8443'] });
    type Template = { spec: { replicas: number; template: { spec: { containers: Array<{ image: string; args: string[] }>; volumes: unknown[] } } } };
    const gateway = get('deployments', 'proxied-egress') as unknown as Template;
    expect(gateway.spec.template.spec.containers[0]!.image).toBe(EGRESS_IMAGE);
    expect(JSON.stringify(gateway.spec.template.spec.volumes)).toContain(KUBECONFIG);
    await stack.until(() => (get('deployments', 'cli-mcp-proxied-server') as unknown as Template | undefined)?.spec.replicas === 1, 'a serving server Deployment');
    expect((get('deployments', 'cli-mcp-proxied-server') as unknown as Template).spec.template.spec.containers[0]!.args).toContain('--egress-gateway');
    // The instance's own sandbox policy grants no egress: the gateway's is the only way out.
    expect((get('networkpolicies', 'cli-mcp-proxied-sandbox') as unknown as { spec: { egress: unknown[] } }).spec.egress).toEqual([]);
    // The gate is shut: the instance's pool refill pauses (the controller's EgressGate), no pool pod is made.
    await eventually(() => operator.logs().some((l) => l['msg'] === 'pool refill paused' && String(l['reason']).includes('proxied-egress')), 'the proxied pool refill paused');
    expect(stack.pods('proxied', 'sandbox')).toEqual([]);

    stack.gatewayUp('proxied', '10.96.7.7');
    await stack.untilCondition('proxied', 'Ready', 'True', undefined, 40_000);
    expect(readyPool('proxied')).toHaveLength(2);
    // Another writer's policy that re-opens the sandboxes' egress shuts the gate (C-EGR-6): Ready says so, and
    // returns once it is gone.
    stack.cluster.api.create(NETWORK_POLICIES, NAMESPACE, { apiVersion: 'networking.k8s.io/v1', kind: 'NetworkPolicy', metadata: { name: 'allow-all-egress' }, spec: { podSelector: {}, policyTypes: ['Egress'], egress: [{}] } });
    await stack.untilCondition('proxied', 'Ready', 'False', 'EgressNotEnforced');
    expect(condition()).toContain('allow-all-egress');
    stack.cluster.api.delete(NETWORK_POLICIES, NAMESPACE, 'allow-all-egress');
    await stack.untilCondition('proxied', 'Ready', 'True');
    for (const pod of stack.pods('proxied', 'sandbox', true)) {
      const spec = JSON.stringify(pod['spec']);
      expect(spec).not.toContain(KUBECONFIG);
      expect(spec).toContain('proxied-egress-sandbox');
    }

    // The gateway reads its routes and kubeconfig once: editing the Secret, then the targets, rolls it.
    const hash = () => (get('deployments', 'proxied-egress') as unknown as { spec: { template: { metadata: { annotations: Record<string, string> } } } }).spec.template.metadata.annotations[EGRESS_CONFIG_HASH_ANNOTATION];
    const before = hash();
    stack.cluster.api.patch(SECRETS, NAMESPACE, KUBECONFIG, 'merge', { stringData: { kubeconfig: KUBECONFIG_TEXT(stack.cluster.url).replace('investigation-token', 'rotated-token') } });
    await stack.until(() => hash() !== before, 'the gateway rolled for the new kubeconfig');
    const afterSecret = hash();
    await stack.apply('proxied', { sandbox: { warmPoolSize: 2 }, proxy: { targets: [{ type: 'kubernetes', secretName: KUBECONFIG }, { type: 'allowlist', domains: ['api.example.com'] }] } });
    await stack.until(() => hash() !== afterSecret, 'the gateway rolled for the new routes');
    expect(JSON.parse((get('configmaps', 'proxied-egress-routes') as unknown as { data: Record<string, string> }).data['routes.json']!)).toEqual({ allow: ['api.example.com:443'] });

    // Teardown: the gateway stops too, then its CA Secret and sandbox ConfigMap (as the gateway writes them: not
    // owned by the CR) go.
    stack.cluster.api.create(SECRETS, NAMESPACE, { apiVersion: 'v1', kind: 'Secret', type: 'kubernetes.io/tls', metadata: { name: 'proxied-egress-ca', labels: { 'cli-mcp.redhat.com/instance': 'proxied', 'cli-mcp.redhat.com/component': 'egress-gateway' } }, stringData: { 'tls.crt': 'c', 'tls.key': 'k' } });
    expect(stack.pods('proxied', 'egress-gateway')).not.toEqual([]);
    await stack.kubectl(['delete', 'climcpinstance', 'proxied', '--wait=false']);
    await stack.until(() => stack.instance('proxied') === undefined, 'the proxied CR gone');
    expect(get('secrets', 'proxied-egress-ca')).toBeUndefined();
    // The sandboxes' ConfigMap the gateway published (gatewayUp stands in for it) goes too: nothing is left.
    expect(get('configmaps', 'proxied-egress-sandbox')).toBeUndefined();
    expect(stack.pods('proxied', 'egress-gateway')).toEqual([]);
    expect(get('secrets', KUBECONFIG)).toBeDefined(); // the admin's
  }, 120_000);

  it('serves HTTPS once cli-mcp-<name>-tls holds a usable pair (as OpenShift\'s service CA writes it from the Service annotation); a bad pair is SecretKeysInvalid', async () => {
    await readyInstance('secure', {});
    type Served = { spec: { template: { spec: { containers: Array<{ args: string[]; readinessProbe: { httpGet: { scheme: string } } }> } } } };
    const server = () => (get('deployments', 'cli-mcp-secure-server') as unknown as Served).spec.template.spec.containers[0]!;
    expect(server().args.join(' ')).not.toContain('--tls-');
    expect(get('services', 'cli-mcp-secure-server')?.metadata.annotations).toMatchObject({ 'service.beta.openshift.io/serving-cert-secret-name': 'cli-mcp-secure-tls' });
    const tlsSecret = (crt: string, key: string) => stack.cluster.api.create(SECRETS, NAMESPACE, { apiVersion: 'v1', kind: 'Secret', type: 'kubernetes.io/tls', metadata: { name: 'cli-mcp-secure-tls' }, stringData: { 'tls.crt': crt, 'tls.key': key } });
    const leaf = await (await RuntimeCa.generate('operator tls')).mintLeaf('cli-mcp-secure-server.team.svc', false, 3_600_000);
    const stray = await (await RuntimeCa.generate('operator tls stray')).mintLeaf('x', false, 3_600_000);
    tlsSecret(leaf.cert, stray.key);
    await stack.untilCondition('secure', 'Ready', 'False', 'SecretKeysInvalid');
    expect(server().args.join(' ')).not.toContain('--tls-');
    stack.cluster.api.delete(SECRETS, NAMESPACE, 'cli-mcp-secure-tls');
    tlsSecret(leaf.cert, leaf.key);
    await stack.until(() => server().args.includes('--tls-cert-file=/etc/cli-mcp/tls/tls.crt'), 'the server rolled to HTTPS');
    expect(server().readinessProbe.httpGet.scheme).toBe('HTTPS');
    await stack.untilCondition('secure', 'Ready', 'True');
  });

  it('makes a deleted HMAC Secret again (a new key) and rolls the server with it', async () => {
    const before = get('secrets', 'cli-mcp-oc-hmac')!;
    const hash = () => (get('deployments', 'cli-mcp-oc-server') as unknown as { spec: { template: { metadata: { annotations: Record<string, string> } } } }).spec.template.metadata.annotations[CONFIG_HASH_ANNOTATION];
    const rolledFrom = hash();
    stack.cluster.api.delete(SECRETS, NAMESPACE, 'cli-mcp-oc-hmac');
    await stack.until(() => (get('secrets', 'cli-mcp-oc-hmac')?.metadata.uid ?? before.metadata.uid) !== before.metadata.uid, 'the HMAC Secret made again');
    const after = get('secrets', 'cli-mcp-oc-hmac')! as Owned & { data: { key: string } };
    expect(after.data.key).not.toBe((before as Owned & { data: { key: string } }).data.key);
    await stack.until(() => hash() !== rolledFrom, 'the server rolled');
    await stack.until(() => stack.deployments.podsOf('cli-mcp-oc-server').every((p) => p.metadata.annotations?.[CONFIG_HASH_ANNOTATION] === hash()), 'server pods of the new template');
    await stack.untilCondition('oc', 'Ready', 'True');
  });

  it('replaces the pool when spec.sandbox.image changes, and keeps the pods sessions claimed', async () => {
    const [claimed, ...rest] = readyPool('oc');
    stack.cluster.api.patch(PODS, NAMESPACE, claimed!.metadata.name!, 'merge', {
      metadata: { labels: { [SESSION_ID_LABEL]: 'tarsy-1' }, annotations: { [LAST_ACTIVITY_ANNOTATION]: formatTimestamp(new Date()) } },
    });
    await stack.until(() => readyPool('oc').length === 2, 'the pool refilled after the claim');
    const oldPool = new Set(readyPool('oc').map((p) => p.metadata.name));
    const oldHash = rest[0]!.metadata.annotations![SPEC_HASH_ANNOTATION];
    await stack.apply('oc', { replicas: 2, sandbox: { warmPoolSize: 2, image: 'quay.io/example/cli-mcp-sandbox:v2' } });
    await stack.until(
      () => readyPool('oc').length === 2 && readyPool('oc').every((p) => !oldPool.has(p.metadata.name) && (p['spec'] as { containers: Array<{ image: string }> }).containers[0]!.image === 'quay.io/example/cli-mcp-sandbox:v2'),
      'a pool of the new image',
    );
    expect(readyPool('oc').every((p) => p.metadata.annotations![SPEC_HASH_ANNOTATION] !== oldHash)).toBe(true);
    const session = stack.cluster.store.get('pods', NAMESPACE, claimed!.metadata.name!)!;
    expect(session.metadata.deletionTimestamp).toBeUndefined();
    expect((session['spec'] as { containers: Array<{ image: string }> }).containers[0]!.image).toBe(SANDBOX_IMAGE);
    await stack.untilCondition('oc', 'Ready', 'True');
    expect(status('oc')).toMatchObject({ resolvedSandboxImage: 'quay.io/example/cli-mcp-sandbox:v2', observedGeneration: 2 });
  });

  it('keeps two instances in one namespace apart: two servers, two pools, their own Secrets', async () => {
    await readyInstance('aws', { sandbox: { warmPoolSize: 1, image: 'quay.io/example/aws-sandbox:1' } });
    expect(readyPool('aws')).toHaveLength(1);
    expect(readyPool('oc')).toHaveLength(2);
    for (const [resource, name] of children('aws')) expect(get(resource, name)?.metadata.ownerReferences?.[0]?.name, `${resource}/${name}`).toBe('aws');
    const awsHmac = (get('secrets', 'cli-mcp-aws-hmac') as Owned & { data: { key: string } }).data.key;
    expect(awsHmac).not.toBe((get('secrets', 'cli-mcp-oc-hmac') as Owned & { data: { key: string } }).data.key);
    // A claim in one instance refills only that pool; the other's pods and status stay as they were.
    const ocPool = readyPool('oc').map((p) => p.metadata.name).sort();
    stack.cluster.api.patch(PODS, NAMESPACE, readyPool('aws')[0]!.metadata.name!, 'merge', { metadata: { labels: { [SESSION_ID_LABEL]: 'aws-session' } } });
    await stack.until(() => readyPool('aws').length === 1 && stack.pods('aws', 'sandbox').length === 2, 'the aws pool refilled');
    expect(readyPool('oc').map((p) => p.metadata.name).sort()).toEqual(ocPool);
    expect(stack.pods('aws', 'sandbox').every((p) => (p['spec'] as { containers: Array<{ image: string }> }).containers[0]!.image === 'quay.io/example/aws-sandbox:1')).toBe(true);
    expect(status('oc')).toMatchObject({ warmPoolReady: 2, warmPoolDesired: 2 });
  });

  it('tears a deleted CR down in order — server to 0 and gone, then sandbox pods and session Secrets — and removes the finalizer', async () => {
    await readyInstance('gone', { sandbox: { warmPoolSize: 1 } });
    stack.cluster.api.patch(PODS, NAMESPACE, readyPool('gone')[0]!.metadata.name!, 'merge', { metadata: { labels: { [SESSION_ID_LABEL]: 's-1' } } });
    stack.cluster.api.create(SECRETS, NAMESPACE, { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'cli-mcp-auth-gone-s-1-x', labels: { 'cli-mcp.redhat.com/instance': 'gone', 'cli-mcp.redhat.com/component': 'sandbox', [SESSION_ID_LABEL]: 's-1' } }, stringData: { token: 't' } });
    await stack.until(() => readyPool('gone').length === 1, 'the pool refilled');
    stack.deployments.holdPods();
    await stack.kubectl(['delete', 'climcpinstance', 'gone', '--wait=false']);
    await stack.until(() => (get('deployments', 'cli-mcp-gone-server') as { spec?: { replicas?: number } } | undefined)?.spec?.replicas === 0, 'the server scaled to 0');
    // While a server pod is left, no sandbox pod or session Secret is touched.
    expect(stack.pods('gone', 'server')).toHaveLength(1);
    expect(stack.pods('gone', 'sandbox')).toHaveLength(2);
    expect(stack.instance('gone')?.metadata.finalizers).toEqual(['cli-mcp.redhat.com/finalizer']);
    await stack.untilCondition('gone', 'Ready', 'False', 'Reconciling');
    stack.deployments.releasePods();
    await stack.until(() => stack.instance('gone') === undefined, 'the CR gone (finalizer removed)');
    // The finalizer went only after every sandbox pod and session Secret was gone.
    expect([...stack.pods('gone', 'sandbox', true), ...stack.pods('gone', 'server', true)].map((p) => p.metadata.name)).toEqual([]);
    expect(stack.cluster.store.list('secrets', NAMESPACE).filter((s) => s.metadata.labels?.[SESSION_ID_LABEL] === 's-1')).toEqual([]);
    await stack.until(() => children('gone').every(([resource, name]) => get(resource, name) === undefined), 'owned children garbage-collected');
    expect(stack.cluster.store.list('secrets', NAMESPACE).filter((s) => s.metadata.labels?.['cli-mcp.redhat.com/instance'] === 'gone')).toEqual([]);
    // The admin Secret is never deleted.
    expect(get('secrets', 'cli-mcp-gone-kubeconfig')).toBeDefined();
  });
});
