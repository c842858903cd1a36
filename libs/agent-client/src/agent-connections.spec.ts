/** The agent client's connections: reused while warm, closed and forgotten once their agent closes or is gone. */
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { AgentConnections, type Lease } from './agent-connections.js';
import { stopServer } from '../test/stop-server.js';

let server: Server | undefined;
let sockets: Socket[] = [];
const connections = new AgentConnections();
// Awaited, not returned: a function a hook resolves to is taken for its teardown (undici's Client class here).
beforeAll(async () => {
  await connections.ready();
});

async function serve(listen: (server: Server, ready: () => void) => void = (s, ready) => s.listen(0, '127.0.0.1', ready)): Promise<string> {
  server = createServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end('{}'));
  });
  server.on('connection', (socket: Socket) => sockets.push(socket));
  await new Promise<void>((resolve) => listen(server!, resolve));
  const address = server.address();
  return typeof address === 'string' ? `unix:${address}` : `http://127.0.0.1:${(address as AddressInfo).port}`;
}

/** One whole call on a lease, as AgentClient makes it, released after its response. */
async function call(lease: Lease): Promise<void> {
  const response = await lease.client.request({ path: lease.path, method: 'GET' });
  await response.body.dump();
  connections.release(lease);
}

afterEach(async () => {
  connections.close();
  await stopServer(server);
  server = undefined;
  sockets = [];
});

describe(AgentConnections.name, () => {
  it('hands the released connection to the next call as reused, and a fresh one when asked', async () => {
    const url = await serve();
    const first = connections.acquire(url, '/health', false);
    expect(first.reused()).toBe(false);
    await call(first);
    const second = connections.acquire(url, '/health', false);
    expect(second.client).toBe(first.client);
    expect(second.reused()).toBe(true);
    const fresh = connections.acquire(url, '/health', true);
    expect(fresh.client).not.toBe(first.client);
    expect(fresh.reused()).toBe(false);
    await Promise.all([call(second), call(fresh)]);
    expect(sockets).toHaveLength(2);
  });

  it('closes an idle connection the agent closed (its idle timeout, restart or exit) and forgets the agent', async () => {
    const url = await serve();
    const lease = connections.acquire(url, '/health', false);
    await call(lease);
    expect(connections.agents).toBe(1);
    sockets[0]!.end();
    await once(lease.client, 'disconnect');
    expect(connections.agents).toBe(0);
    expect(lease.client.destroyed).toBe(true);
  });

  it('keeps nothing of an agent that refused the connection once the call discards it', async () => {
    const url = await serve();
    await new Promise<void>((resolve) => server!.close(() => resolve()));
    server = undefined;
    const lease = connections.acquire(url, '/health', false);
    await expect(lease.client.request({ path: lease.path, method: 'GET' })).rejects.toMatchObject({ code: 'ECONNREFUSED' });
    connections.discard(lease);
    expect(connections.agents).toBe(0);
    expect(lease.client.destroyed).toBe(true);
  });

  it('keeps an agent on a Unix socket apart from one on TCP, and close() destroys every connection', async () => {
    const tcp = await serve();
    const tcpServer = server!;
    const dir = mkdtempSync(join(tmpdir(), 'agent-connections-'));
    const unix = await serve((s, ready) => s.listen(join(dir, 'agent.sock'), ready));
    const onTcp = connections.acquire(tcp, '/health', false);
    const onUnix = connections.acquire(unix, '/health', false);
    await Promise.all([call(onTcp), call(onUnix)]);
    const busy = connections.acquire(unix, '/health', false);
    expect(busy.client).toBe(onUnix.client);
    expect(connections.agents).toBe(2);
    connections.close();
    expect(connections.agents).toBe(0);
    expect([onTcp.client.destroyed, onUnix.client.destroyed]).toEqual([true, true]);
    await stopServer(tcpServer);
    rmSync(dir, { recursive: true, force: true });
  });

  it('keeps at most 16 idle connections of one agent', async () => {
    const url = await serve();
    const leases = Array.from({ length: 20 }, () => connections.acquire(url, '/health', false));
    await Promise.all(leases.map(call));
    const pooled = new Set(Array.from({ length: 20 }, () => connections.acquire(url, '/health', false)).filter((l) => l.reused()).map((l) => l.client));
    expect(pooled.size).toBe(16);
    expect(leases.filter((l) => l.client.destroyed)).toHaveLength(4);
  });

  it('joins a path prefix of the base URL to the call path', async () => {
    const url = await serve();
    expect(connections.acquire(`${url}/agent/`, '/exec', false).path).toBe('/agent/exec');
    expect(connections.acquire(url, '/exec', false).path).toBe('/exec');
  });
});

describe('undici, loaded on the first call (issue 22 item 6)', () => {
  it('refuses a connection before ready() and makes one after', async () => {
    // A fresh module instance: this file's shared `connections` already loaded undici.
    const { vi } = await import('vitest');
    vi.resetModules();
    const fresh = new (await import('./agent-connections.js')).AgentConnections();
    const url = await serve();
    expect(() => fresh.acquire(url, '/health', false)).toThrow('AgentConnections.acquire before ready()');
    await fresh.ready();
    const lease = fresh.acquire(url, '/health', false);
    const response = await lease.client.request({ path: lease.path, method: 'GET' });
    expect(response.statusCode).toBe(200);
    await response.body.dump();
    fresh.close();
  });
});
