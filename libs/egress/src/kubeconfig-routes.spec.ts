import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { afterAll, describe, expect, it } from 'vitest';
import { parseKubeconfig } from './kubeconfig.js';
import { PLACEHOLDER_TOKEN, dummyKubeconfig, kubeconfigRoutes } from './kubeconfig-routes.js';
import { Routes } from './routes.js';

// Issue 20 items 2/3: the investigation kubeconfig becomes Kubernetes routes (credential injected, CA pinned), and
// the sandbox gets a dummy one with the same servers, the gateway's CA and a placeholder token (C-EGR-5).
const API_CA = '-----BEGIN CERTIFICATE-----\nQVBJ\n-----END CERTIFICATE-----\n';
const GW_CA = '-----BEGIN CERTIFICATE-----\nR1c=\n-----END CERTIFICATE-----\n';
const b64 = (s: string) => Buffer.from(s).toString('base64');
const dir = mkdtempSync(join(tmpdir(), 'egress-kubeconfig-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function kubeconfig(overrides: { clusters?: unknown[]; users?: unknown[]; contexts?: unknown[]; current?: string } = {}): string {
  return JSON.stringify({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: overrides.clusters ?? [
      { name: 'prod', cluster: { server: 'https://API.Prod.example.com:6443', 'certificate-authority-data': b64(API_CA) } },
      { name: 'lab', cluster: { server: 'https://[fd00::10]', 'certificate-authority-data': b64(API_CA) } },
    ],
    users: overrides.users ?? [
      { name: 'investigator', user: { token: 'real-secret-token' } },
      { name: 'cert-user', user: { 'client-certificate-data': b64('CERT'), 'client-key-data': b64('KEY') } },
    ],
    contexts: overrides.contexts ?? [
      { name: 'prod', context: { cluster: 'prod', user: 'investigator', namespace: 'apps' } },
      { name: 'lab', context: { cluster: 'lab', user: 'cert-user' } },
    ],
    'current-context': overrides.current ?? 'prod',
  });
}
const routesOf = (text: string) => kubeconfigRoutes(parseKubeconfig(text, '/secret/kubeconfig'), '/secret/kubeconfig');

describe('kubeconfigRoutes', () => {
  it('routes every context’s API server as a canonical host:port, with its CA and its user’s token or client certificate', () => {
    const routes = routesOf(kubeconfig());
    expect(routes).toEqual([
      { kind: 'kubernetes', authority: 'api.prod.example.com:6443', ca: API_CA, credential: { token: 'real-secret-token' } },
      { kind: 'kubernetes', authority: '[fd00::10]:443', ca: API_CA, credential: { cert: 'CERT', key: 'KEY' } },
    ]);
    // The core accepts them as they are.
    expect(new Routes(routes).size).toBe(2);
  });

  it('reads file references relative to the kubeconfig, as kubectl does', () => {
    writeFileSync(join(dir, 'ca.crt'), API_CA);
    writeFileSync(join(dir, 'token'), 'file-token\n');
    const text = kubeconfig({
      clusters: [{ name: 'c', cluster: { server: 'https://k.test', 'certificate-authority': 'ca.crt' } }],
      users: [{ name: 'u', user: { tokenFile: join(dir, 'token') } }],
      contexts: [{ name: 'x', context: { cluster: 'c', user: 'u' } }],
    });
    const config = parseKubeconfig(text, join(dir, 'kubeconfig'), (path) => readFileSync(path, 'utf8'));
    expect(kubeconfigRoutes(config, 'k')).toEqual([{ kind: 'kubernetes', authority: 'k.test:443', ca: API_CA, credential: { token: 'file-token' } }]);
    expect(() => parseKubeconfig(text, join(dir, 'kubeconfig'))).toThrow(/file references are not supported here/);
  });

  it('refuses what it cannot route safely, naming every entry and field at once', () => {
    const text = kubeconfig({
      clusters: [
        { name: 'plain', cluster: { server: 'http://k.test:8080', 'certificate-authority-data': b64(API_CA) } },
        { name: 'insecure', cluster: { server: 'https://i.test', 'insecure-skip-tls-verify': true } },
        { name: 'sni', cluster: { server: 'https://s.test', 'certificate-authority-data': b64(API_CA), 'tls-server-name': 'other' } },
      ],
      users: [{ name: 'exec', user: { exec: { command: 'aws' } } }, { name: 'none', user: {} }],
      contexts: [
        { name: 'a', context: { cluster: 'plain', user: 'none' } },
        { name: 'b', context: { cluster: 'insecure', user: 'exec' } },
        { name: 'c', context: { cluster: 'sni', user: 'ghost' } },
      ],
    });
    let message = '';
    try {
      routesOf(text);
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toMatch(/^\/secret\/kubeconfig: /);
    for (const part of [
      'clusters[plain].server http://k.test:8080 is not https',
      'users[none] has no token and no client certificate',
      'clusters[insecure] has no certificate-authority-data (insecure-skip-tls-verify cannot be honoured',
      'users[exec] authenticates with exec',
      'contexts[c] names user "ghost", which is not listed',
    ]) expect(message).toContain(part);
  });

  it('refuses one API server reached with two credentials (which would it inject?) but accepts the same one twice', () => {
    const clusters = [
      { name: 'a', cluster: { server: 'https://k.test:6443', 'certificate-authority-data': b64(API_CA) } },
      { name: 'b', cluster: { server: 'https://K.TEST.:6443', 'certificate-authority-data': b64(API_CA) } },
    ];
    const users = [{ name: 'u1', user: { token: 't1' } }, { name: 'u2', user: { token: 't2' } }];
    expect(() => routesOf(kubeconfig({ clusters, users, contexts: [{ name: 'x', context: { cluster: 'a', user: 'u1' } }, { name: 'y', context: { cluster: 'b', user: 'u2' } }] })))
      .toThrow(/contexts\[x\] and contexts\[y\] reach k\.test:6443 with different credentials/);
    expect(routesOf(kubeconfig({ clusters, users, contexts: [{ name: 'x', context: { cluster: 'a', user: 'u1' } }, { name: 'y', context: { cluster: 'b', user: 'u1' } }] }))).toHaveLength(1);
  });

  it('says what is wrong with text that is not a kubeconfig', () => {
    expect(() => parseKubeconfig('a: [', 'k')).toThrow(/^k: not YAML/);
    expect(() => parseKubeconfig('- 1', 'k')).toThrow(/not a kubeconfig/);
    expect(() => parseKubeconfig(JSON.stringify({ clusters: [{ name: 'a' }] }), 'k')).toThrow(/clusters\[0\] needs a name and a cluster mapping/);
    expect(() => routesOf(JSON.stringify({ clusters: [], users: [], contexts: [] }))).toThrow(/no context/);
  });
});

describe('dummyKubeconfig', () => {
  it('keeps servers, contexts, namespaces and the current context; trusts only the gateway CA; carries only the placeholder token', () => {
    const text = dummyKubeconfig(parseKubeconfig(kubeconfig(), 'k'), 'k', GW_CA);
    expect(text).not.toContain('real-secret-token');
    expect(text).not.toContain(b64('KEY'));
    expect(text).not.toContain(b64(API_CA));
    expect(parse(text)).toEqual({
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [
        { name: 'prod', cluster: { server: 'https://API.Prod.example.com:6443', 'certificate-authority-data': b64(GW_CA) } },
        { name: 'lab', cluster: { server: 'https://[fd00::10]', 'certificate-authority-data': b64(GW_CA) } },
      ],
      users: [{ name: 'investigator', user: { token: PLACEHOLDER_TOKEN } }, { name: 'cert-user', user: { token: PLACEHOLDER_TOKEN } }],
      contexts: [
        { name: 'prod', context: { cluster: 'prod', user: 'investigator', namespace: 'apps' } },
        { name: 'lab', context: { cluster: 'lab', user: 'cert-user' } },
      ],
      'current-context': 'prod',
    });
  });

  it('names a proxy for every cluster when asked (the local relay: kubectl bypasses HTTPS_PROXY for loopback servers)', () => {
    const clusters = parse(dummyKubeconfig(parseKubeconfig(kubeconfig(), 'k'), 'k', GW_CA, { proxyUrl: 'http://127.0.0.1:3128' })).clusters as Array<{ cluster: Record<string, string> }>;
    expect(clusters.map(({ cluster }) => cluster['proxy-url'])).toEqual(['http://127.0.0.1:3128', 'http://127.0.0.1:3128']);
  });

  it('falls back to the first routed context when the current one is missing', () => {
    expect(parse(dummyKubeconfig(parseKubeconfig(kubeconfig({ current: 'gone' }), 'k'), 'k', GW_CA))['current-context']).toBe('prod');
  });
});
