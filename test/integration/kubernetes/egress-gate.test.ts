/**
 * The fail-closed egress gate on the server's path (C-EGR-6, issue 20 item 3), against the fake API server with its
 * kubelet and real agents: with `--egress-gateway` and the gate shut, a new session's first call fails naming what
 * is missing and creates no pod; the gateway Service, its ready endpoint and the sandbox NetworkPolicy open it; a
 * second policy granting egress to the sandboxes shuts it again. The pod built with egress on has the dummy
 * kubeconfig, not the real Secret, the proxy and CA variables, no service-account token, and (`--sandbox-dns none`,
 * the default) no resolver but the proxy's name mapped to the Service's ClusterIP. Every request the gate sends is
 * allowed by the server Role deploy/base ships.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { SESSION_ID_LABEL, buildSandboxEgressPolicy } from '@cli-mcp/podspec';
import { SessionErrorCode } from '@cli-mcp/session';
import { ENDPOINT_SLICES, NETWORK_POLICIES, eventually, type KubeObject } from '@cli-mcp/testing';
import { createEgressService, EGRESS_SANDBOX_CA, publishEgressSandboxConfig } from '../../support/egress-service.js';
import { FAST_KUBELET, INSTANCE, KUBECONFIG_SECRET, NAMESPACE, noAbort, skipReason, startKubeStack, type KubeStack, type Replica } from './support/kube-stack.js';
import { describeWhenReady } from '../../support/prerequisites.js';

interface Rule {
  apiGroups: string[];
  resources: string[];
  verbs: string[];
}

const serverRole = (): Rule[] =>
  (parse(readFileSync(fileURLToPath(new URL('../../../deploy/base/server-role.yaml', import.meta.url)), 'utf8')) as { rules: Rule[] }).rules;

/** Runs `command` in `session` until it succeeds (the gate's verdict is reused for up to 5 s), or fails the test. */
async function eventuallyRuns(replica: Replica, session: string, timeoutMs = 30_000): Promise<string> {
  let last: unknown;
  let stdout = '';
  await eventually(async () => {
    try {
      stdout = (await replica.manager.execute(session, { command: 'echo through' }, noAbort())).response.stdout;
      return true;
    } catch (error) {
      last = error;
      await new Promise((resolve) => setTimeout(resolve, 250));
      return false;
    }
  }, `session ${session} runs (last error: ${String(last)})`, timeoutMs);
  return stdout;
}

describeWhenReady('egress gate on the Kubernetes backend (C-EGR-6)', skipReason, () => {
  let stack: KubeStack;
  let replica: Replica;
  beforeAll(async () => {
    stack = await startKubeStack(FAST_KUBELET, { egressGateway: true });
    replica = stack.replica();
    publishEgressSandboxConfig(stack.cluster, NAMESPACE, INSTANCE);
  }, 60_000);
  afterAll(async () => {
    await stack?.stop();
  }, 60_000);

  it('a closed gate: the first call fails naming every missing condition, and no pod or Secret is created', async () => {
    stack.cluster.requests.clear();
    await expect(replica.manager.execute('egress-closed', { command: 'true' }, noAbort())).rejects.toMatchObject({
      code: SessionErrorCode.EgressNotEnforced,
      message: 'resolve pod: egress gateway not enforced: Service oc-egress is missing; Service oc-egress has no ready endpoints; NetworkPolicy oc-egress-sandbox is missing',
    });
    expect(stack.pods()).toEqual([]);
    expect(stack.secrets()).toEqual([]);
    const role = serverRole();
    const groups: Record<string, string> = { endpointslices: 'discovery.k8s.io', networkpolicies: 'networking.k8s.io', services: '' };
    const gateRequests = stack.cluster.requests.entries().filter((r) => (r.resource as string) in groups);
    expect(gateRequests.map((r) => `${r.verb as string} ${r.resource as string}`).sort()).toEqual(['get services', 'list endpointslices', 'list networkpolicies']);
    for (const r of gateRequests) {
      expect(role.some((rule) => rule.apiGroups.includes(groups[r.resource as string]!) && rule.resources.includes(r.resource as string) && rule.verbs.includes(r.verb as string))).toBe(true);
    }
  }, 60_000);

  it('opened (the Service, a ready endpoint, the sandbox policy), a session runs; its pod has the dummy kubeconfig, the proxy and CA env, no token, no DNS', async () => {
    const clusterIp = createEgressService(stack.cluster, NAMESPACE, INSTANCE);
    expect(clusterIp).toMatch(/^\d+\.\d+\.\d+\.\d+$/);
    stack.cluster.api.create(ENDPOINT_SLICES, NAMESPACE, {
      apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice',
      metadata: { name: `${INSTANCE}-egress-abcde`, labels: { 'kubernetes.io/service-name': `${INSTANCE}-egress` } },
      addressType: 'IPv4', endpoints: [{ addresses: ['10.96.7.7'], conditions: { ready: true } }], ports: [{ name: 'proxy', port: 3128, protocol: 'TCP' }],
    });
    stack.cluster.api.create(NETWORK_POLICIES, NAMESPACE, buildSandboxEgressPolicy({ namespace: NAMESPACE, instanceName: INSTANCE }) as unknown as KubeObject);
    expect(await eventuallyRuns(replica, 'egress-open')).toBe('through');

    const [pod] = stack.livePods('egress-open');
    const spec = pod!['spec'] as { automountServiceAccountToken?: boolean; volumes: unknown[]; containers: Array<{ env: Array<{ name: string; value?: string }> }> };
    expect(JSON.stringify(spec.volumes)).not.toContain(KUBECONFIG_SECRET);
    expect(JSON.stringify(spec.volumes)).toContain(`${INSTANCE}-egress-sandbox`);
    const env = Object.fromEntries(spec.containers[0]!.env.map((e) => [e.name, e.value]));
    expect(env).toMatchObject({ HTTPS_PROXY: `http://${INSTANCE}-egress.${NAMESPACE}.svc:3128`, NO_PROXY: 'localhost,127.0.0.1,::1', NODE_EXTRA_CA_CERTS: '/etc/cli-mcp-egress/ca.crt' });
    expect(spec.automountServiceAccountToken).toBe(false);
    // --sandbox-dns none: loopback as the only nameserver, and the proxy's host answered by /etc/hosts (hostAliases).
    expect(pod!['spec']).toMatchObject({ dnsPolicy: 'None', dnsConfig: { nameservers: ['127.0.0.1'] }, hostAliases: [{ ip: clusterIp, hostnames: [`${INSTANCE}-egress.${NAMESPACE}.svc`] }] });
    expect(pod!.metadata.annotations?.['cli-mcp.redhat.com/egress-proxy-address']).toBe(clusterIp);
    // Inside: $KUBECONFIG is the gateway's dummy, the CA is its ca.crt (the kubelet mounts the sandbox ConfigMap).
    const inside = await replica.manager.execute('egress-open', { command: 'cat "$KUBECONFIG"; cat "$NODE_EXTRA_CA_CERTS"' }, noAbort());
    // (The agent drops the output's final newline.)
    expect(inside.response.stdout).toBe(`apiVersion: v1\nkind: Config\n${EGRESS_SANDBOX_CA.trimEnd()}`);
  }, 60_000);

  it('a second policy that grants the sandboxes egress shuts the gate again, naming it', async () => {
    stack.cluster.api.create(NETWORK_POLICIES, NAMESPACE, {
      apiVersion: 'networking.k8s.io/v1', kind: 'NetworkPolicy', metadata: { name: 'allow-all-egress' },
      spec: { podSelector: {}, policyTypes: ['Egress'], egress: [{}] },
    });
    // A fresh replica: its gate has no verdict yet, so it reads the policies now (a warm one may reuse "open" ≤ 5 s).
    const error: unknown = await stack.replica().manager.execute('egress-reopened', { command: 'true' }, noAbort()).then(() => undefined, (e: unknown) => e);
    expect(error).toMatchObject({ code: SessionErrorCode.EgressNotEnforced, message: expect.stringContaining('NetworkPolicy allow-all-egress also selects sandbox pods and allows egress') });
    // Only the session opened earlier has a pod.
    expect(stack.pods().map((p) => (p.metadata.labels as Record<string, string>)[SESSION_ID_LABEL])).toEqual(['egress-open']);
  }, 60_000);
});
