import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { dummyKubeconfig, KubeconfigProblem, PLACEHOLDER_TOKEN, readKubeconfigRoutes } from './kubeconfig.js';
import { Routes } from './routes.js';

const CA = '-----BEGIN CERTIFICATE-----\nQ0E=\n-----END CERTIFICATE-----\n';
const CERT = '-----BEGIN CERTIFICATE-----\nQ0VSVA==\n-----END CERTIFICATE-----\n';
const KEY = '-----BEGIN PRIVATE KEY-----\nS0VZ\n-----END PRIVATE KEY-----\n';
const b64 = (text: string): string => Buffer.from(text).toString('base64');
const GATEWAY_CA = '-----BEGIN CERTIFICATE-----\nR1c=\n-----END CERTIFICATE-----\n';

function kubeconfig(parts: { clusters: object[]; users: object[]; contexts: object[]; current?: string }): string {
  return JSON.stringify({ apiVersion: 'v1', kind: 'Config', ...parts, 'current-context': parts.current ?? '' });
}

const noFiles = (path: string): Promise<string> => Promise.reject(new Error(`unexpected read of ${path}`));

describe(readKubeconfigRoutes.name, () => {
  it('makes one pinned, credentialed route per cluster, the current context deciding its cluster\'s user', async () => {
    const text = kubeconfig({
      clusters: [
        { name: 'prod', cluster: { server: 'https://API.prod.example:6443', 'certificate-authority-data': b64(CA) } },
        { name: 'kind', cluster: { server: 'https://127.0.0.1:40123', 'certificate-authority': 'ca.crt' } },
      ],
      users: [
        { name: 'admin', user: { token: 'admin-token' } },
        { name: 'viewer', user: { token: 'viewer-token' } },
        { name: 'kind-user', user: { 'client-certificate-data': b64(CERT), 'client-key': '/keys/kind.key' } },
      ],
      contexts: [
        { name: 'prod-admin', context: { cluster: 'prod', user: 'admin' } },
        { name: 'prod-view', context: { cluster: 'prod', user: 'viewer', namespace: 'apps' } },
        { name: 'kind', context: { cluster: 'kind', user: 'kind-user' } },
      ],
      current: 'prod-view',
    });
    const files: Record<string, string> = { '/home/u/.kube/ca.crt': CA, '/keys/kind.key': KEY };
    const read = await readKubeconfigRoutes(text, '/home/u/.kube', (path) => Promise.resolve(files[path] ?? Promise.reject(new Error(path))));
    expect(read.routes).toEqual([
      { kind: 'kubernetes', authority: 'api.prod.example:6443', ca: CA, credential: { token: 'viewer-token' } },
      { kind: 'kubernetes', authority: '127.0.0.1:40123', ca: CA, credential: { cert: CERT, key: KEY } },
    ]);
    expect(() => new Routes(read.routes)).not.toThrow();
    expect(read.currentContext).toBe('prod-view');
    expect(read.contexts.map((c) => c.name)).toEqual(['prod-admin', 'prod-view', 'kind']);
    expect(read.skipped).toEqual([]);
  });

  it('skips clusters it cannot serve faithfully, with the reason, and keeps the rest', async () => {
    const ok = { name: 'ok', cluster: { server: 'https://ok.example', 'certificate-authority-data': b64(CA) } };
    const bad = [
      { name: 'exec', cluster: { server: 'https://exec.example', 'certificate-authority-data': b64(CA) }, user: { exec: { command: 'aws' } }, why: /exec credential plugin/ },
      { name: 'plain', cluster: { server: 'http://plain.example:8080' }, user: { token: 't' }, why: /not https/ },
      { name: 'insecure', cluster: { server: 'https://i.example', 'insecure-skip-tls-verify': true }, user: { token: 't' }, why: /insecure-skip-tls-verify/ },
      { name: 'noca', cluster: { server: 'https://noca.example' }, user: { token: 't' }, why: /certificate-authority/ },
      { name: 'prefix', cluster: { server: 'https://rancher.example/k8s/clusters/c-1', 'certificate-authority-data': b64(CA) }, user: { token: 't' }, why: /path prefix/ },
      { name: 'nocred', cluster: { server: 'https://n.example', 'certificate-authority-data': b64(CA) }, user: {}, why: /no token or client certificate/ },
    ];
    const text = kubeconfig({
      clusters: [ok, ...bad.map(({ name, cluster }) => ({ name, cluster }))],
      users: [{ name: 'ok', user: { token: 'tok' } }, ...bad.map(({ name, user }) => ({ name, user }))],
      contexts: [{ name: 'ok', context: { cluster: 'ok', user: 'ok' } }, ...bad.map(({ name }) => ({ name, context: { cluster: name, user: name } }))],
    });
    const read = await readKubeconfigRoutes(text, '/', noFiles);
    expect(read.routes.map((r) => r.authority)).toEqual(['ok.example:443']);
    expect(read.currentContext).toBe('ok');
    for (const { name, why } of bad) expect(read.skipped.find((s) => s.cluster === name)?.reason).toMatch(why);
  });

  it('fails when nothing is usable or the file is not a kubeconfig', async () => {
    await expect(readKubeconfigRoutes('clusters: [', '/', noFiles)).rejects.toThrow(/not valid YAML/);
    await expect(readKubeconfigRoutes('- a\n- b\n', '/', noFiles)).rejects.toThrow(KubeconfigProblem);
    await expect(readKubeconfigRoutes(kubeconfig({ clusters: [], users: [], contexts: [] }), '/', noFiles)).rejects.toThrow(/no cluster the egress gateway can use/);
    const onlyExec = kubeconfig({
      clusters: [{ name: 'c', cluster: { server: 'https://c.example', 'certificate-authority-data': b64(CA) } }],
      users: [{ name: 'u', user: { exec: {} } }],
      contexts: [{ name: 'c', context: { cluster: 'c', user: 'u' } }],
    });
    await expect(readKubeconfigRoutes(onlyExec, '/', noFiles)).rejects.toThrow(/c: user u uses an exec credential plugin/);
  });
});

describe(dummyKubeconfig.name, () => {
  it('keeps the real servers, contexts and namespaces; carries the gateway CA and only a placeholder token', async () => {
    const text = kubeconfig({
      clusters: [{ name: 'prod', cluster: { server: 'https://api.prod.example:6443', 'certificate-authority-data': b64(CA) } }],
      users: [{ name: 'admin', user: { token: 'REAL-SECRET' } }],
      contexts: [{ name: 'prod', context: { cluster: 'prod', user: 'admin', namespace: 'ops' } }],
      current: 'prod',
    });
    const dummy = dummyKubeconfig(await readKubeconfigRoutes(text, '/', noFiles), GATEWAY_CA);
    expect(dummy).not.toContain('REAL-SECRET');
    expect(dummy).not.toContain(b64(CA));
    expect(parse(dummy)).toEqual({
      apiVersion: 'v1', kind: 'Config', 'current-context': 'prod',
      clusters: [{ name: 'prod', cluster: { server: 'https://api.prod.example:6443', 'certificate-authority-data': b64(GATEWAY_CA) } }],
      users: [{ name: 'cli-mcp-egress', user: { token: PLACEHOLDER_TOKEN } }],
      contexts: [{ name: 'prod', context: { cluster: 'prod', user: 'cli-mcp-egress', namespace: 'ops' } }],
    });
    const proxied = parse(dummyKubeconfig(await readKubeconfigRoutes(text, '/', noFiles), GATEWAY_CA, { proxyUrl: 'http://127.0.0.1:3128' }));
    expect(proxied.clusters[0].cluster['proxy-url']).toBe('http://127.0.0.1:3128');
  });
});
