/**
 * How a failed call names its cause (C-K8S-7): recovery retries only what certainly never reached an agent
 * (`ECONNREFUSED`, `ENOENT`), so every failure after the request was written must carry another errno.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { errors } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { AgentClient } from './agent-client.js';
import { AgentErrorCode } from './agent-error.js';
import { networkFailure } from './network-failure.js';
import { stopServer } from '../test/stop-server.js';

let server: Server | undefined;
let client: AgentClient;

async function serve(handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<string> {
  server = createServer((req, res) => {
    req.resume();
    req.on('end', () => handler(req, res));
  });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

afterEach(async () => {
  client?.close();
  await stopServer(server);
  server = undefined;
});

describe('AgentClient failures', () => {
  it('names a refused connection ECONNREFUSED (not delivered)', async () => {
    client = new AgentClient();
    const url = await serve(() => undefined);
    await new Promise<void>((resolve) => server!.close(() => resolve()));
    server = undefined;
    await expect(client.exec(url, 't', { command: 'true' })).rejects.toMatchObject({
      code: AgentErrorCode.Network, errno: 'ECONNREFUSED', message: expect.stringContaining(`${url}/exec: connect ECONNREFUSED`),
    });
  });

  it('names a Unix socket path with nothing behind it ENOENT (not delivered), on exec as on control calls', async () => {
    client = new AgentClient();
    const dir = mkdtempSync(join(tmpdir(), 'agent-client-failures-'));
    const url = `unix:${join(dir, 'missing.sock')}`;
    await expect(client.exec(url, 't', { command: 'true' })).rejects.toMatchObject({ code: AgentErrorCode.Network, errno: 'ENOENT' });
    await expect(client.cancel(url, 't')).rejects.toMatchObject({ code: AgentErrorCode.Network, errno: 'ENOENT' });
    rmSync(dir, { recursive: true, force: true });
  });

  it('names a reset after the agent read the request ECONNRESET (may have run)', async () => {
    client = new AgentClient();
    const url = await serve((req) => req.socket.resetAndDestroy());
    await expect(client.exec(url, 't', { command: 'true' })).rejects.toMatchObject({ code: AgentErrorCode.Network, errno: 'ECONNRESET' });
  });

  it('names an agent closing the connection after the request without answering ECONNRESET "socket hang up", never not-delivered', async () => {
    client = new AgentClient();
    const url = await serve((req) => req.socket.end());
    const error = await client.exec(url, 'secret-token', { command: 'true' }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: AgentErrorCode.Network, errno: 'ECONNRESET', message: `execute ${url}/exec: socket hang up` });
    expect((error as Error).message).not.toContain('secret-token');
  });

  it('reports a body cut off after the status line as a Decode error of that status, not a network failure', async () => {
    client = new AgentClient();
    const url = await serve((req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': '100' });
      res.write('{"stdout":', () => req.socket.resetAndDestroy());
    });
    await expect(client.exec(url, 't', { command: 'true' })).rejects.toMatchObject({
      code: AgentErrorCode.BadResponse, status: 200, message: expect.stringContaining('response aborted'),
    });
  });

  it('closes the connection when a control call times out (nothing left waiting on the agent)', async () => {
    client = new AgentClient({ controlTimeoutMs: 30 });
    let closed!: () => void;
    const connectionClosed = new Promise<void>((resolve) => (closed = resolve));
    const url = await serve((req) => req.socket.on('close', closed));
    await expect(client.health(url)).rejects.toMatchObject({ code: AgentErrorCode.Network, message: expect.stringContaining('no response within 30 ms') });
    await connectionClosed;
  });

  it('closes the connection of a response over the size cap', async () => {
    client = new AgentClient({ maxResponseBytes: 1024 });
    let closed!: () => void;
    const connectionClosed = new Promise<void>((resolve) => (closed = resolve));
    const url = await serve((req, res) => {
      req.socket.on('close', closed);
      // Headers and a first chunk over the cap; the rest never comes, so only the client's close ends this.
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('x'.repeat(4096));
    });
    await expect(client.exec(url, 't', { command: 'true' })).rejects.toMatchObject({ code: AgentErrorCode.BadResponse });
    await connectionClosed;
  });
});

describe(networkFailure.name, () => {
  it.each([
    ['an undici socket error (other side closed)', new errors.SocketError('other side closed'), 'ECONNRESET', 'socket hang up'],
    ['a destroyed client', new errors.ClientDestroyedError(), 'ECONNRESET', 'socket hang up'],
    ['a closed client', new errors.ClientClosedError(), 'ECONNRESET', 'socket hang up'],
    ['a connect timeout', new errors.ConnectTimeoutError('Connect Timeout Error'), 'ETIMEDOUT', 'Connect Timeout Error'],
    ['a Node socket error', Object.assign(new Error('write EPIPE'), { code: 'EPIPE' }), 'EPIPE', 'write EPIPE'],
  ])('maps %s to %s', (_name, error, errno, detail) => {
    expect(networkFailure(error)).toEqual({ errno, detail });
  });
});
