import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startGateway, type TestGateway } from '../test/gateway-fixture.js';
import { RuntimeCa, startHttpsUpstream, type Upstream } from '../test/upstream-fixture.js';
import { describeWhenReady, KUBECTL_PROBLEM } from '../../../test/support/prerequisites.js';

// The real kubectl through the gateway (issue 20 item 5): a dummy kubeconfig (real server URL, the gateway CA, a
// placeholder token) and HTTPS_PROXY, as a sandbox will have. The identity that arrives is the route's, whatever
// token kubectl is given; exec is refused.
const TOKEN = 'investigation-token';
let api: Upstream;
let gw: TestGateway;
let dir: string;

function kubectl(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const env = { PATH: process.env.PATH ?? '', HOME: dir, KUBECONFIG: join(dir, 'kubeconfig'), HTTPS_PROXY: `http://127.0.0.1:${gw.port}`, NO_PROXY: '127.0.0.1,localhost,::1' };
  return new Promise((resolve) => {
    execFile('kubectl', ['--request-timeout=5s', ...args], { env }, (error, stdout, stderr) =>
      resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, stdout, stderr }));
  });
}

describeWhenReady('kubectl through the gateway', KUBECTL_PROBLEM, () => {
  beforeAll(async () => {
    const apiCa = await RuntimeCa.generate('fake API server CA');
    api = await startHttpsUpstream(apiCa, ['kube.example.test']);
    gw = await startGateway({
      routes: [{ kind: 'kubernetes', authority: 'kube.example.test:6443', ca: apiCa.certPem, credential: { token: TOKEN } }],
      names: { 'kube.example.test': ['10.0.0.5'] },
      dial: { '10.0.0.5:6443': api.port },
    });
    dir = mkdtempSync(join(tmpdir(), 'egress-kubectl-'));
    const ca = Buffer.from(gw.ca.certPem).toString('base64');
    writeFileSync(join(dir, 'kubeconfig'), [
      'apiVersion: v1', 'kind: Config', 'current-context: c',
      'clusters: [{name: c, cluster: {server: "https://kube.example.test:6443", certificate-authority-data: ' + ca + '}}]',
      'users: [{name: u, user: {token: proxy-managed-token}}]',
      'contexts: [{name: c, context: {cluster: c, user: u, namespace: default}}]', '',
    ].join('\n'));
  });

  afterAll(async () => {
    await gw?.close();
    await api?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('arrives as the route identity whatever --token says', async () => {
    const result = await kubectl(['--token', 'STOLEN', 'get', '--raw', '/api/v1/namespaces/default/pods']);
    expect(result.stderr).toBe('');
    expect(JSON.parse(result.stdout).authorization).toBe(`Bearer ${TOKEN}`);
    expect(api.seen.map((s) => s.headers.authorization)).not.toContain('Bearer STOLEN');
  });

  it('has --as and --as-group stripped', async () => {
    await kubectl(['--as', 'system:admin', '--as-group', 'system:masters', 'get', '--raw', '/api/v1/namespaces']);
    expect(api.seen.at(-1)!.url).toMatch(/^\/api\/v1\/namespaces\?/);
    expect(Object.keys(api.seen.at(-1)!.headers).filter((h) => h.startsWith('impersonate-'))).toEqual([]);
  });

  it('cannot reach exec', async () => {
    const result = await kubectl(['get', '--raw', '/api/v1/namespaces/default/pods/p/exec?command=id']);
    expect(result.code).not.toBe(0);
    expect(result.stderr).toMatch(/Forbidden|403|exec subresource/);
    expect(api.seen.some((s) => s.url.includes('/exec'))).toBe(false);
  });
});
