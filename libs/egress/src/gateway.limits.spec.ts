import { connect, createServer, type AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exchange, openTunnel, rawToGateway, tlsInTunnel } from '../test/client.js';
import { startGateway, type TestGateway } from '../test/gateway-fixture.js';
import { RuntimeCa, startHttpsUpstream, type Upstream } from '../test/upstream-fixture.js';
import { EGRESS_METRIC_NAMES } from './metrics.js';

// Limits (slow headers, header size, idle tunnels), session revocation (C-EGR-6) and the metrics (C-EGR-7).
const PUBLIC = '93.184.215.14';
let upstream: Upstream;
let gw: TestGateway;

beforeAll(async () => {
  const upstreamCa = await RuntimeCa.generate('upstream test CA');
  upstream = await startHttpsUpstream(upstreamCa, ['api.example.test']);
  gw = await startGateway({
    routes: [{ kind: 'allow', authority: 'api.example.test:443', ca: upstreamCa.certPem }],
    names: { 'api.example.test': [PUBLIC] },
    dial: { [`${PUBLIC}:443`]: upstream.port },
    limits: { headersTimeoutMs: 300, maxHeaderBytes: 4096, idleMs: 400 },
  });
});

afterAll(async () => {
  await gw.close();
  await upstream.close();
});

describe('limits', () => {
  it('answers 408 and closes a connection whose request head never completes', async () => {
    const started = Date.now();
    const reply = await exchange(connect({ host: '127.0.0.1', port: gw.port }), 'CONNECT api.example.test:443 HTTP/1.1\r\nHost: api.example.test:443\r\n');
    expect(reply.status).toBe(408);
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it('answers 431 to a request head over the limit', async () => {
    const response = await rawToGateway(gw.port, `CONNECT api.example.test:443 HTTP/1.1\r\nHost: api.example.test:443\r\nX-Pad: ${'a'.repeat(8192)}\r\n\r\n`);
    expect(response.status).toBe(431);
  });

  it('closes a tunnel left idle with no request in flight', async () => {
    const { socket } = await openTunnel(gw.port, 'api.example.test:443');
    const tls = await tlsInTunnel(socket, 'api.example.test', gw.ca.certPem);
    const started = Date.now();
    await new Promise<void>((resolve) => {
      tls.on('data', () => undefined);
      tls.once('close', () => resolve());
      tls.write('GET /one HTTP/1.1\r\nHost: api.example.test\r\n\r\n');
    });
    expect(Date.now() - started).toBeGreaterThanOrEqual(300);
  });
});

describe('clients that vanish', () => {
  it.each(['after the 200', 'during the TLS handshake'])('survive a client reset %s and keep serving', async (when) => {
    const { socket } = await openTunnel(gw.port, 'api.example.test:443');
    if (when === 'during the TLS handshake') socket.write(Buffer.from([0x16, 0x03, 0x01, 0x00, 0x40]));
    await new Promise((resolve) => setTimeout(resolve, 20));
    socket.resetAndDestroy();
    await new Promise((resolve) => setTimeout(resolve, 50));
    const { response, socket: next } = await openTunnel(gw.port, 'api.example.test:443');
    expect(response.status).toBe(200);
    next.destroy();
  });
});

describe('first request of a tunnel', () => {
  it('has the leaves of every route minted before any CONNECT', async () => {
    const fresh = await startGateway({ routes: [{ kind: 'allow', authority: 'a.example.test:443' }, { kind: 'allow', authority: '[2606:4700::1]:443' }] });
    try {
      expect(fresh.gateway.leaves.mints).toBe(2);
    } finally {
      await fresh.close();
    }
  });

  it('finds an upstream connection opened during the client handshake, and uses that one', async () => {
    const upstreamCa = await RuntimeCa.generate('warm CA');
    const warmUpstream = await startHttpsUpstream(upstreamCa, ['api.example.test']);
    const fresh = await startGateway({ routes: [{ kind: 'allow', authority: 'api.example.test:443', ca: upstreamCa.certPem }], names: { 'api.example.test': [PUBLIC] }, dial: { [`${PUBLIC}:443`]: warmUpstream.port } });
    try {
      const { socket } = await openTunnel(fresh.port, 'api.example.test:443');
      const tls = await tlsInTunnel(socket, 'api.example.test', fresh.ca.certPem);
      expect(fresh.dialled).toEqual([`${PUBLIC}:443`]);
      expect((await exchange(tls, 'GET /first HTTP/1.1\r\nHost: api.example.test\r\nConnection: close\r\n\r\n')).status).toBe(200);
      expect(fresh.dialled).toHaveLength(1);
    } finally {
      await fresh.close();
      await warmUpstream.close();
    }
  });
});

describe('per-session connection cap', () => {
  it('refuses a session its connections beyond the cap with 429 while another session is still served', async () => {
    const capped = await startGateway({ routes: [{ kind: 'allow', authority: 'a.example.test:443' }], limits: { maxConnectionsPerSession: 2 } });
    const other = createServer();
    capped.gateway.attach(other, () => ({ sessionId: 'other', instance: 'test' }));
    await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve));
    const held = [connect({ host: '127.0.0.1', port: capped.port }), connect({ host: '127.0.0.1', port: capped.port })];
    try {
      await Promise.all(held.map((socket) => new Promise((resolve) => socket.once('connect', resolve))));
      await new Promise((resolve) => setTimeout(resolve, 50));
      const third = await rawToGateway(capped.port, 'CONNECT a.example.test:443 HTTP/1.1\r\nHost: a.example.test:443\r\n\r\n');
      expect(third.status).toBe(429);
      expect(capped.audit.at(-1)).toMatchObject({ session: 's1', reason: 'too_many_connections', decision: 'deny' });
      const elsewhere = await rawToGateway((other.address() as AddressInfo).port, 'CONNECT b.example.test:443 HTTP/1.1\r\nHost: b.example.test:443\r\n\r\n');
      expect(elsewhere.status).toBe(403);
    } finally {
      for (const socket of held) socket.destroy();
      await new Promise<void>((resolve) => other.close(() => resolve()));
      await capped.close();
    }
  });
});

describe('session revocation', () => {
  it('closes an open tunnel at once and refuses the session afterwards', async () => {
    const other = await startGateway({ routes: [{ kind: 'allow', authority: 'api.example.test:443' }], names: { 'api.example.test': [PUBLIC] }, sessionId: 'gone' });
    try {
      const { socket } = await openTunnel(other.port, 'api.example.test:443');
      const closed = new Promise<number>((resolve) => socket.once('close', () => resolve(Date.now())));
      const revokedAt = Date.now();
      other.gateway.revoke('gone');
      expect((await closed) - revokedAt).toBeLessThan(1000);
      const again = await rawToGateway(other.port, 'CONNECT api.example.test:443 HTTP/1.1\r\nHost: api.example.test:443\r\n\r\n');
      expect(again.status).toBe(403);
      expect(JSON.parse(again.body).error).toBe('session_revoked');
      expect(other.audit.at(-1)).toMatchObject({ session: 'gone', reason: 'session_revoked', decision: 'deny' });
      // A new life of the id (the local backend: reused after DELETE, recreated after an idle reap) is served again.
      other.gateway.admit('gone');
      const admitted = await openTunnel(other.port, 'api.example.test:443');
      admitted.socket.destroy();
      expect(admitted.response.status).toBe(200);
    } finally {
      await other.close();
    }
  });
});

describe('metrics and audit', () => {
  it('counts decisions by decision and route kind only, and never records a query', async () => {
    await openTunnel(gw.port, 'denied.example.test:443').then(({ socket }) => socket.destroy());
    const text = await gw.registry.metrics();
    expect(text).toMatch(new RegExp(`${EGRESS_METRIC_NAMES.requests}\\{decision="deny",route="none"\\} \\d+`));
    expect(text).toContain(`${EGRESS_METRIC_NAMES.seconds}_bucket`);
    expect(text).not.toContain('denied.example.test');
    expect(gw.audit.every((record) => !record.path.includes('?'))).toBe(true);
  });
});
