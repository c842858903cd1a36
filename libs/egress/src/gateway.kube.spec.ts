import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exchange, expectRefusedUnsent, openTunnel, requestThroughTunnel, tlsInTunnel, type RawResponse } from '../test/client.js';
import { startGateway, type TestGateway } from '../test/gateway-fixture.js';
import { RuntimeCa, startHttpsUpstream, type Upstream } from '../test/upstream-fixture.js';

// C-EGR-5 on a Kubernetes route: the API server is private (10.0.0.5, allowed on this route only), its TLS is
// verified against the kubeconfig CA, identity headers are stripped and the route's token is injected.
const API = 'kube.example.test:6443';
const TOKEN = 'investigation-token';
let apiCa: RuntimeCa;
let api: Upstream;
let certApi: Upstream;
let gw: TestGateway;

const get = (path: string, headers = ''): Promise<RawResponse> =>
  requestThroughTunnel(gw.port, API, 'kube.example.test', gw.ca.certPem, `GET ${path} HTTP/1.1\r\nHost: kube.example.test\r\n${headers}Connection: close\r\n\r\n`);

beforeAll(async () => {
  apiCa = await RuntimeCa.generate('fake API server CA');
  const otherCa = await RuntimeCa.generate('some other CA');
  api = await startHttpsUpstream(apiCa, ['kube.example.test']);
  const clientCa = await RuntimeCa.generate('client CA');
  const user = await clientCa.mintLeaf('investigation-user', false, 3_600_000, 'client');
  certApi = await startHttpsUpstream(apiCa, ['cert.example.test'], { clientCa: clientCa.certPem });
  gw = await startGateway({
    routes: [
      { kind: 'kubernetes', authority: API, ca: apiCa.certPem, credential: { token: TOKEN } },
      { kind: 'kubernetes', authority: 'pinned.example.test:6443', ca: otherCa.certPem, credential: { token: TOKEN } },
      { kind: 'kubernetes', authority: 'cert.example.test:6443', ca: apiCa.certPem, credential: { cert: user.cert, key: user.key } },
    ],
    names: { 'kube.example.test': ['10.0.0.5'], 'pinned.example.test': ['10.0.0.6'], 'cert.example.test': ['10.0.0.7'] },
    dial: { '10.0.0.5:6443': api.port, '10.0.0.6:6443': api.port, '10.0.0.7:6443': certApi.port },
  });
});

afterAll(async () => {
  await gw.close();
  await api.close();
  await certApi.close();
});

describe('a Kubernetes route', () => {
  it('replaces a stolen Authorization with the route token: the API server sees only the injected one', async () => {
    const response = await get('/api/v1/namespaces/default/pods', 'Authorization: Bearer STOLEN\r\n');
    expect(response.status).toBe(200);
    expect(JSON.parse(response.body).authorization).toBe(`Bearer ${TOKEN}`);
    expect(api.seen.at(-1)!.headers.authorization).toBe(`Bearer ${TOKEN}`);
    expect(gw.audit.at(-1)).toMatchObject({ route: 'kubernetes', credentialInjected: true, decision: 'allow', path: '/api/v1/namespaces/default/pods' });
    // C-EGR-7: the audit says a credential was injected, never which.
    expect(JSON.stringify(gw.audit)).not.toMatch(new RegExp(`${TOKEN}|STOLEN`));
  });

  it('presents the route client certificate and strips a stolen Authorization on a certificate route', async () => {
    const response = await requestThroughTunnel(gw.port, 'cert.example.test:6443', 'cert.example.test', gw.ca.certPem, 'GET /api/v1/namespaces HTTP/1.1\r\nHost: cert.example.test\r\nAuthorization: Bearer STOLEN\r\nConnection: close\r\n\r\n');
    expect(response.status).toBe(200);
    expect(certApi.seen.at(-1)).toMatchObject({ clientCertSubject: 'investigation-user' });
    expect(certApi.seen.at(-1)!.headers.authorization).toBeUndefined();
    expect(gw.audit.at(-1)).toMatchObject({ credentialInjected: true });
  });

  it('strips impersonation, front-proxy, cookie, API key, forwarding and proxy headers', async () => {
    const hostile = ['Impersonate-User: system:admin', 'Impersonate-Group: system:masters', 'Impersonate-Uid: 0', 'Impersonate-Extra-scopes: all',
      'X-Remote-User: admin', 'X-Remote-Group: system:masters', 'X-Api-Key: k', 'Cookie: c=1', 'X-Forwarded-For: 1.2.3.4', 'Via: 1.1 evil',
      'Proxy-Authorization: Basic eDp5'].join('\r\n');
    const response = await get('/api/v1/namespaces', `${hostile}\r\nX-Kept: yes\r\n`);
    expect(response.status).toBe(200);
    const seen = Object.keys(api.seen.at(-1)!.headers);
    expect(seen.filter((name) => /^(impersonate-|x-remote-|x-api-key|cookie|x-forwarded-|via|proxy-)/.test(name))).toEqual([]);
    expect(seen).toContain('x-kept');
  });

  it.each([
    '/api/v1/namespaces/default/pods/p/exec?command=sh', '/api/v1/namespaces/default/pods/p/attach', '/api/v1/namespaces/default/pods/p/portforward',
    '/api/v1/namespaces/default/services/s/proxy/x', '/api/v1/nodes/n/proxy/metrics', '/api/v1/proxy/namespaces/default/pods/p',
    '/api/v1/namespaces/default/pods/p/%65xec', '/api/v1/namespaces/default/pods/p%2Fexec', '/api/v1/namespaces/default/pods/p/exec/',
    '/api/v1/watch/namespaces/default/pods/p/exec', '/apis/apps/v1/namespaces/default/deployments/d/proxy',
  ])('denies %s with 403', async (path) => {
    const response = await expectRefusedUnsent(api.seen, 403, () => get(path));
    expect(JSON.parse(response.body).error).toBe('path_denied');
  });

  it.each(['/api/v1/namespaces/default/pods/p/exec;x', '//api/v1/namespaces/default/pods/p/exec', '/api/v1/namespaces/default/pods/p/exec/..',
    '/api/v1/namespaces/default/pods/p/./exec', '/api/v1/namespaces/default/pods/p/%2565xec'])('refuses the ambiguous path %s with 400', async (path) => {
    await expectRefusedUnsent(api.seen, 400, () => get(path));
  });

  it('allows logs, watches and resources named like a denied subresource', async () => {
    for (const path of ['/api/v1/namespaces/default/pods/p/log', '/api/v1/namespaces/proxy/pods/exec', '/api/v1/namespaces/default/pods/p/status']) {
      expect((await get(path)).status).toBe(200);
    }
  });

  it.each(['Upgrade: websocket\r\nConnection: Upgrade\r\n', 'Upgrade: SPDY/3.1\r\nConnection: Upgrade\r\n', 'Upgrade: h2c\r\nConnection: Upgrade, HTTP2-Settings\r\nHTTP2-Settings: AAMAAABkAARAAAAAAAIAAAAA\r\n'])(
    'refuses an Upgrade on a harmless path (%j)',
    async (headers) => {
      await expectRefusedUnsent(api.seen, 403, () => get('/api/v1/namespaces', headers));
    },
  );

  it('lets no HTTP/2 through: a prior-knowledge preface is refused and nothing reaches the API server', async () => {
    const { socket } = await openTunnel(gw.port, API);
    const tls = await tlsInTunnel(socket, 'kube.example.test', gw.ca.certPem);
    expect(tls.alpnProtocol).not.toBe('h2');
    await expectRefusedUnsent(api.seen, 400, () => exchange(tls, 'PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n'));
  });

  it('refuses plain HTTP inside a CONNECT to a Kubernetes route', async () => {
    const { socket } = await openTunnel(gw.port, API);
    const response = await exchange(socket, 'GET /api HTTP/1.1\r\nHost: kube.example.test\r\n\r\n');
    expect(response.status).toBe(403);
  });

  it('verifies the upstream against the route CA: another CA gets 502 and nothing is sent', async () => {
    await expectRefusedUnsent(api.seen, 502, () =>
      requestThroughTunnel(gw.port, 'pinned.example.test:6443', 'pinned.example.test', gw.ca.certPem, 'GET /api HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n'));
  });

  it('keeps a watch stream streaming: events arrive one by one before the response ends', async () => {
    const { socket } = await openTunnel(gw.port, API);
    const tls = await tlsInTunnel(socket, 'kube.example.test', gw.ca.certPem);
    const arrivals: number[] = [];
    await new Promise<void>((resolve) => {
      tls.on('data', (chunk: Buffer) => {
        if (chunk.includes('"type":"ADDED"')) arrivals.push(Date.now());
        if (arrivals.length === 5) resolve();
      });
      tls.write('GET /api/v1/namespaces/default/pods?watch=true HTTP/1.1\r\nHost: kube.example.test\r\n\r\n');
    });
    tls.destroy();
    // Five separate arrivals spread over time: nothing waited for the (never-ending) body to finish.
    expect(arrivals.at(-1)! - arrivals[0]).toBeGreaterThan(40);
  });
});
