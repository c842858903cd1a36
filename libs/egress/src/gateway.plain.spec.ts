import { createServer, type Server } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exchange, openTunnel, rawToGateway, requestThroughTunnel } from '../test/client.js';
import { startGateway, type TestGateway } from '../test/gateway-fixture.js';
import { startHttpUpstream, type Upstream } from '../test/upstream-fixture.js';
import { jsonLineSink, type AuditRecord } from './audit.js';

// Plain HTTP where a route allows it (C-EGR-4), the connect and handshake timeouts, and the JSON-line audit sink.
const PUBLIC = '93.184.215.14';
const SILENT = '93.184.215.15';
let upstream: Upstream;
let silent: Server;
let gw: TestGateway;

beforeAll(async () => {
  upstream = await startHttpUpstream();
  // Accepts TCP and never answers: an upstream TLS handshake to it can only time out.
  silent = createServer((socket) => socket.resume());
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
  const silentPort = (silent.address() as { port: number }).port;
  gw = await startGateway({
    routes: [
      { kind: 'allow', authority: 'plain.example.test:80', plainHttp: true },
      { kind: 'allow', authority: 'silent.example.test:443' },
    ],
    names: { 'plain.example.test': [PUBLIC], 'silent.example.test': [SILENT] },
    dial: { [`${PUBLIC}:80`]: upstream.port, [`${SILENT}:443`]: silentPort },
    limits: { connectTimeoutMs: 300, handshakeTimeoutMs: 300 },
  });
});

afterAll(async () => {
  await gw.close();
  await upstream.close();
  await new Promise<void>((resolve) => silent.close(() => resolve()));
});

describe('plain HTTP on a route that allows it', () => {
  it('forwards an absolute-form request, default port and all, with Host set to the target', async () => {
    const response = await rawToGateway(gw.port, 'GET http://PLAIN.example.test/a?b=1 HTTP/1.1\r\nHost: elsewhere.test\r\nConnection: close\r\n\r\n');
    expect(response.status).toBe(200);
    expect(JSON.parse(response.body)).toMatchObject({ path: '/a?b=1', host: 'plain.example.test' });
    expect(gw.audit.at(-1)).toMatchObject({ method: 'GET', host: 'plain.example.test:80', path: '/a', decision: 'allow' });
  });

  it('forwards plaintext inside a CONNECT', async () => {
    const { socket } = await openTunnel(gw.port, 'plain.example.test:80');
    const response = await exchange(socket, 'GET /in HTTP/1.1\r\nHost: plain.example.test\r\nConnection: close\r\n\r\n');
    expect(response.status).toBe(200);
    expect(JSON.parse(response.body)).toMatchObject({ path: '/in' });
  });

  it('refuses an https:// URL sent without CONNECT', async () => {
    expect((await rawToGateway(gw.port, 'GET https://plain.example.test/ HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n')).status).toBe(400);
  });
});

describe('timeouts', () => {
  it('answers 504 when the upstream never completes its handshake', async () => {
    const response = await requestThroughTunnel(gw.port, 'silent.example.test:443', 'silent.example.test', gw.ca.certPem, 'GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
    expect(response.status).toBe(504);
    // …and the dialled connection is gone, not left open on the upstream.
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(await new Promise((resolve) => silent.getConnections((_e, n) => resolve(n)))).toBe(0);
  });

  it('closes a tunnel whose client never starts TLS', async () => {
    const { socket } = await openTunnel(gw.port, 'silent.example.test:443');
    const started = Date.now();
    await new Promise((resolve) => socket.once('close', resolve));
    expect(Date.now() - started).toBeGreaterThanOrEqual(250);
  });
});

describe('jsonLineSink', () => {
  it('writes one JSON line per record', () => {
    const lines: string[] = [];
    const record = { time: 't', session: 's', instance: 'i', method: 'GET', host: 'h:1', path: '/', status: 200, bytes: 2, ms: 1, decision: 'allow', reason: 'ok', route: 'allow', credentialInjected: false } satisfies AuditRecord;
    jsonLineSink((line) => lines.push(line))(record);
    expect(lines).toHaveLength(1);
    expect(lines[0].endsWith('\n')).toBe(true);
    expect(JSON.parse(lines[0])).toEqual(record);
  });
});
