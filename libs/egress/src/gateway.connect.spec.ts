import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { curl, exchange, python, expectRefusedUnsent, openTunnel, rawToGateway, requestThroughTunnel, tlsInTunnel } from '../test/client.js';
import { startGateway, type TestGateway } from '../test/gateway-fixture.js';
import { RuntimeCa, startHttpsUpstream, type Upstream } from '../test/upstream-fixture.js';

// C-EGR-2…4 on an allow-list route, with real clients (curl, node:tls). The test resolver hands out a public
// address (example.com's) that the test dialer maps to the loopback upstream; nothing outside is contacted.
const PUBLIC = '93.184.215.14';
let upstreamCa: RuntimeCa;
let upstream: Upstream;
let gw: TestGateway;

beforeAll(async () => {
  upstreamCa = await RuntimeCa.generate('upstream test CA');
  upstream = await startHttpsUpstream(upstreamCa, ['api.example.test']);
  gw = await startGateway({
    routes: [
      { kind: 'allow', authority: 'api.example.test:443', ca: upstreamCa.certPem },
      { kind: 'allow', authority: 'rebind.example.test:443', ca: upstreamCa.certPem },
      { kind: 'allow', authority: 'metadata.example.test:443', ca: upstreamCa.certPem },
      { kind: 'allow', authority: 'nat64.example.test:443', ca: upstreamCa.certPem },
    ],
    names: {
      'api.example.test': [PUBLIC],
      'rebind.example.test': [PUBLIC, '10.0.0.1'],
      'metadata.example.test': ['169.254.169.254'],
      'nat64.example.test': ['64:ff9b::a9fe:a9fe'],
      'elsewhere.test': [PUBLIC],
    },
    dial: { [`${PUBLIC}:443`]: upstream.port },
  });
});

afterAll(async () => {
  await gw.close();
  await upstream.close();
});

describe('an allowed route', () => {
  it('carries a real curl request through the tunnel to the address the gateway checked', async () => {
    const result = await curl(gw.port, gw.ca.certPem, ['https://api.example.test/hello?secret=1']);
    expect(result.stderr).toBe('');
    expect(JSON.parse(result.stdout)).toMatchObject({ path: '/hello?secret=1', host: 'api.example.test' });
    expect(gw.dialled).toContain(`${PUBLIC}:443`);
    const record = gw.audit.find((r) => r.path === '/hello');
    expect(record).toMatchObject({ session: 's1', instance: 'test', method: 'GET', host: 'api.example.test:443', status: 200, decision: 'allow', reason: 'ok', route: 'allow', credentialInjected: false });
  });

  it("serves Python's strict verification (VERIFY_X509_STRICT, Python 3.13's default) through urllib", async () => {
    const script = [
      'import ssl, sys, urllib.request',
      'ctx = ssl.create_default_context(cafile=sys.argv[2])',
      'ctx.verify_flags |= ssl.VERIFY_X509_STRICT',
      "proxy = urllib.request.ProxyHandler({'https': sys.argv[1]})",
      'opener = urllib.request.build_opener(proxy, urllib.request.HTTPSHandler(context=ctx))',
      "print(opener.open('https://api.example.test/py', timeout=5).read().decode())",
    ].join('\n');
    const result = await python(script, [`http://127.0.0.1:${gw.port}`], gw.ca.certPem);
    expect(result.stderr).toBe('');
    expect(JSON.parse(result.stdout)).toMatchObject({ path: '/py', host: 'api.example.test' });
  });
});

describe('refusals (issue 20 item 5)', () => {
  it('refuses a host that is not allowed with a 403 naming the flag that would allow it', async () => {
    const { response } = await openTunnel(gw.port, 'other.example.test:443');
    expect(response.status).toBe(403);
    expect(JSON.parse(response.body)).toEqual({ error: 'not_allowed', message: expect.any(String), host: 'other.example.test:443', flag: '--egress-allow other.example.test:443' });
    expect(gw.audit.at(-1)).toMatchObject({ method: 'CONNECT', decision: 'deny', reason: 'not_allowed', route: 'none' });
  });

  it.each([
    'api.example.test:443@evil.test', 'user@api.example.test:443', 'api.example.test:0443', 'api.example.test:443x',
    'api.example.test:65536', 'api.example.test:0', 'api.example.test', '[fe80::1%25eth0]:443', '[::1', 'a:b:c:443', '127.1:443',
    'api.example.test.:443.', '', 'api..example.test:443',
  ])('answers 400 to the malformed authority %j', async (authority) => {
    const { response } = await openTunnel(gw.port, authority);
    expect(response.status).toBe(400);
  });

  it.each(['API.Example.TEST:443', 'api.example.test.:443'])('treats the case and trailing-dot variant %s as the allowed name', async (authority) => {
    const { response, socket } = await openTunnel(gw.port, authority);
    expect(response.status).toBe(200);
    socket.destroy();
  });

  it.each([`${PUBLIC}:443`, `[::ffff:${PUBLIC}]:443`, '[::1]:443', '[64:ff9b::5db8:d70e]:443'])('refuses the address literal %s of an allowed name', async (authority) => {
    const { response } = await openTunnel(gw.port, authority);
    expect(response.status).toBe(403);
  });

  it.each(['rebind.example.test', 'metadata.example.test', 'nat64.example.test'])('refuses %s, which the resolver maps to a private or metadata address', async (name) => {
    const { response } = await openTunnel(gw.port, `${name}:443`);
    expect(response.status).toBe(403);
    expect(JSON.parse(response.body)).toMatchObject({ error: 'address_refused' });
    expect(gw.dialled.some((d) => d.startsWith('10.') || d.startsWith('169.254') || d.startsWith('64:'))).toBe(false);
  });

  it('refuses a ClientHello whose SNI names another host', async () => {
    const { socket } = await openTunnel(gw.port, 'api.example.test:443');
    await expect(tlsInTunnel(socket, 'elsewhere.test', gw.ca.certPem)).rejects.toThrow();
    expect(gw.audit.at(-1)).toMatchObject({ reason: 'authority_mismatch', decision: 'deny' });
  });

  it('sends the CONNECT target as Host whatever Host the client wrote', async () => {
    const before = upstream.seen.length;
    const response = await requestThroughTunnel(gw.port, 'api.example.test:443', 'api.example.test', gw.ca.certPem, 'GET /h HTTP/1.1\r\nHost: elsewhere.test\r\nConnection: close\r\n\r\n');
    expect(response.status).toBe(200);
    expect(upstream.seen.slice(before).map((s) => s.headers.host)).toEqual(['api.example.test']);
  });

  it('refuses an absolute-form URL inside the tunnel that names another host', async () => {
    await expectRefusedUnsent(upstream.seen, 421, () =>
      requestThroughTunnel(gw.port, 'api.example.test:443', 'api.example.test', gw.ca.certPem, 'GET https://elsewhere.test/x HTTP/1.1\r\nHost: elsewhere.test\r\nConnection: close\r\n\r\n'));
  });

  it('accepts an absolute-form URL naming the CONNECT target itself', async () => {
    const response = await requestThroughTunnel(gw.port, 'api.example.test:443', 'api.example.test', gw.ca.certPem, 'GET https://api.example.test/self HTTP/1.1\r\nHost: api.example.test\r\nConnection: close\r\n\r\n');
    expect(response.status).toBe(200);
    expect(JSON.parse(response.body)).toMatchObject({ path: '/self' });
  });

  it('passes a redirect through unchanged, and the followed redirect to another host is refused', async () => {
    const plain = await curl(gw.port, gw.ca.certPem, ['-o', '/dev/null', '-w', '%{http_code} %{redirect_url}', 'https://api.example.test/redirect']);
    expect(plain.stdout).toBe('302 https://elsewhere.test/stolen');
    const followed = await curl(gw.port, gw.ca.certPem, ['-L', 'https://api.example.test/redirect']);
    expect(followed.code).not.toBe(0);
    expect(followed.stderr).toMatch(/403/);
    expect(upstream.seen.some((s) => s.url === '/stolen')).toBe(false);
  });

  it('refuses a CONNECT inside a tunnel', async () => {
    const response = await requestThroughTunnel(gw.port, 'api.example.test:443', 'api.example.test', gw.ca.certPem, 'CONNECT elsewhere.test:443 HTTP/1.1\r\nHost: elsewhere.test:443\r\n\r\n');
    expect(response.status).toBe(405);
  });

  it('refuses plain HTTP to a route that does not allow it, as absolute form and inside a CONNECT', async () => {
    const absolute = await rawToGateway(gw.port, 'GET http://api.example.test:443/ HTTP/1.1\r\nHost: api.example.test\r\nConnection: close\r\n\r\n');
    expect(absolute.status).toBe(403);
    expect(JSON.parse(absolute.body)).toMatchObject({ error: 'plain_http_refused' });
    const { socket } = await openTunnel(gw.port, 'api.example.test:443');
    expect((await exchange(socket, 'GET / HTTP/1.1\r\nHost: api.example.test\r\n\r\n')).status).toBe(403);
  });
});
