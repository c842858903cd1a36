import type { V1Secret } from '@kubernetes/client-node';
import { RuntimeCa } from '@cli-mcp/egress';
import { beforeAll, describe, expect, it } from 'vitest';
import { generatedSecrets, secretText } from './generated-secrets.js';
import { checkSecrets, kubeconfigProblem, servesTls } from './secret-gates.js';

const KUBECONFIG = `apiVersion: v1
kind: Config
clusters: [{ name: c, cluster: { server: 'https://api.example.com:6443' } }]
users: [{ name: u, user: { token: t } }]
contexts: [{ name: x, context: { cluster: c, user: u, namespace: default } }]
current-context: x
`;
const secret = (data: Record<string, string>): V1Secret => ({ data: Object.fromEntries(Object.entries(data).map(([k, v]) => [k, Buffer.from(v).toString('base64')])) });
const GENERATED = [{ name: 'cli-mcp-oc-hmac', key: 'key' }, { name: 'cli-mcp-oc-auth', key: 'token' }];

describe(checkSecrets.name, () => {
  const store = (secrets: Record<string, V1Secret>) => (name: string) => secrets[name];
  const ok = { 'cli-mcp-oc-kubeconfig': secret({ kubeconfig: KUBECONFIG }), 'cli-mcp-oc-hmac': secret({ key: 'k'.repeat(64) }), 'cli-mcp-oc-auth': secret({ token: 't' }) };

  it('passes with every Secret present and usable', () => {
    expect(checkSecrets(store(ok), { kubeconfig: 'cli-mcp-oc-kubeconfig', generated: GENERATED })).toBeUndefined();
  });

  it('says SecretsNotFound, then SecretKeysInvalid, then KubeconfigInvalid', () => {
    const { 'cli-mcp-oc-kubeconfig': _, ...noKubeconfig } = ok;
    expect(checkSecrets(store(noKubeconfig), { kubeconfig: 'cli-mcp-oc-kubeconfig', generated: GENERATED })).toEqual({
      reason: 'SecretsNotFound', message: 'Secret cli-mcp-oc-kubeconfig not found (create cli-mcp-oc-kubeconfig with key kubeconfig: the kubeconfig sandboxes use)',
    });
    expect(checkSecrets(store({ ...ok, 'cli-mcp-oc-hmac': secret({ key: '  \n' }) }), { kubeconfig: 'cli-mcp-oc-kubeconfig', generated: GENERATED })).toEqual({
      reason: 'SecretKeysInvalid', message: 'Secret cli-mcp-oc-hmac (key key) is missing or empty',
    });
    expect(checkSecrets(store({ ...ok, 'cli-mcp-oc-kubeconfig': secret({ config: KUBECONFIG }) }), { kubeconfig: 'cli-mcp-oc-kubeconfig', generated: GENERATED })?.reason).toBe('SecretKeysInvalid');
    expect(checkSecrets(store({ ...ok, 'cli-mcp-oc-kubeconfig': secret({ kubeconfig: 'not: [yaml' }) }), { kubeconfig: 'cli-mcp-oc-kubeconfig', generated: GENERATED })).toMatchObject({
      reason: 'KubeconfigInvalid', message: expect.stringMatching(/^Secret cli-mcp-oc-kubeconfig key kubeconfig: not a kubeconfig: /),
    });
  });

  describe('the optional cli-mcp-<name>-tls', () => {
    const pems: Record<string, string> = {};
    beforeAll(async () => {
      const leaf = await (await RuntimeCa.generate('gate one')).mintLeaf('cli-mcp-oc-server.team.svc', false, 3_600_000);
      const other = await (await RuntimeCa.generate('gate two')).mintLeaf('x', false, 3_600_000);
      Object.assign(pems, { cert: leaf.cert, key: leaf.key, otherKey: other.key });
    });
    const required = { kubeconfig: 'cli-mcp-oc-kubeconfig', generated: GENERATED, tls: 'cli-mcp-oc-tls' };

    it('absent: no problem and plain HTTP; a usable pair: no problem and HTTPS', () => {
      expect(checkSecrets(store(ok), required)).toBeUndefined();
      expect(servesTls(store(ok), 'cli-mcp-oc-tls')).toBe(false);
      const withTls = { ...ok, 'cli-mcp-oc-tls': secret({ 'tls.crt': pems.cert!, 'tls.key': pems.key! }) };
      expect(checkSecrets(store(withTls), required)).toBeUndefined();
      expect(servesTls(store(withTls), 'cli-mcp-oc-tls')).toBe(true);
    });

    it('present but unusable: SecretKeysInvalid saying why, and no HTTPS (the server would not start with it)', () => {
      const bad = (data: Record<string, string>) => ({ ...ok, 'cli-mcp-oc-tls': secret(data) });
      expect(checkSecrets(store(bad({ 'tls.crt': pems.cert! })), required)).toEqual({ reason: 'SecretKeysInvalid', message: 'Secret cli-mcp-oc-tls: needs both tls.crt and tls.key' });
      expect(checkSecrets(store(bad({ 'tls.crt': pems.cert!, 'tls.key': pems.otherKey! })), required)).toEqual({
        reason: 'SecretKeysInvalid', message: expect.stringMatching(/^Secret cli-mcp-oc-tls: .*key values mismatch/),
      });
      expect(servesTls(store(bad({ 'tls.crt': pems.cert!, 'tls.key': pems.otherKey! })), 'cli-mcp-oc-tls')).toBe(false);
    });
  });

  it('judges a kubeconfig by what kubectl in the sandbox needs', () => {
    expect(kubeconfigProblem(KUBECONFIG)).toBeUndefined();
    expect(kubeconfigProblem('apiVersion: v1\nkind: Config\n')).toBe('no current-context');
    expect(kubeconfigProblem(KUBECONFIG.replace('current-context: x', 'current-context: y'))).toBe('current-context "y" is not among its contexts');
    expect(kubeconfigProblem(KUBECONFIG.replace("server: 'https://api.example.com:6443'", "insecure-skip-tls-verify: true"))).toMatch(/^not a kubeconfig: clusters\[0\]\.cluster/);
    expect(kubeconfigProblem(KUBECONFIG.replace('user: u, namespace', 'user: nobody, namespace'))).toBe('context "x" names no known user');
  });
});

describe(generatedSecrets.name, () => {
  it('makes 64 hex characters of key and token, owned by the CR, labelled for the instance', () => {
    const { hmac, auth } = generatedSecrets('oc');
    const built = hmac.build({ name: 'oc', uid: 'u' }, 'ns', (n) => new Uint8Array(n).fill(171));
    expect(secretText(built, 'key')).toBe('ab'.repeat(32));
    expect(built.metadata).toMatchObject({ name: 'cli-mcp-oc-hmac', namespace: 'ns', labels: { 'cli-mcp.redhat.com/instance': 'oc', 'cli-mcp.redhat.com/component': 'server' } });
    expect(built.metadata?.ownerReferences).toEqual([{ apiVersion: 'cli-mcp.redhat.com/v1alpha1', kind: 'CliMcpInstance', name: 'oc', uid: 'u', controller: true, blockOwnerDeletion: true }]);
    expect(auth.name).toBe('cli-mcp-oc-auth');
    expect(auth.key).toBe('token');
  });
});
