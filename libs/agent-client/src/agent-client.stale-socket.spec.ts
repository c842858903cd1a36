/**
 * A pooled keep-alive socket the agent has already closed (it restarted, drained or exited) fails the next request
 * at once. The client retries that once on a new connection; a reset that comes later (the agent had the request)
 * is never retried, because the command may have run.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { AgentClient } from './agent-client.js';
import { AgentErrorCode } from './agent-error.js';
import type { ExecResponse } from './wire.js';
import { stopServer } from '../test/stop-server.js';

const okExec = (stdout: string): ExecResponse => ({
  stdout, stderr: '', exit_code: 0, duration_ms: 1, timed_out: false, cancelled: false,
  truncated: false, state_reset: false, stdout_bytes: stdout.length, stderr_bytes: 0,
});

interface Served {
  url: string;
  /** Connections accepted so far. */
  connections: () => number;
  /** Requests whose body arrived, in order: `<connection>:<command>`. */
  requests: string[];
}

type Behaviour = (req: IncomingMessage, res: ServerResponse, nth: { connection: number; onSocket: number }) => void;

let server: Server | undefined;
let client: AgentClient;

async function serve(behaviour: Behaviour): Promise<Served> {
  const requests: string[] = [];
  const perSocket = new Map<Socket, { connection: number; count: number }>();
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      const entry = perSocket.get(req.socket)!;
      entry.count += 1;
      requests.push(`${entry.connection}:${(JSON.parse(body) as { command: string }).command}`);
      behaviour(req, res, { connection: entry.connection, onSocket: entry.count });
    });
  });
  server.on('connection', (socket: Socket) => perSocket.set(socket, { connection: perSocket.size + 1, count: 0 }));
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, connections: () => perSocket.size, requests };
}

const answer = (res: ServerResponse, stdout: string): void => {
  res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(okExec(stdout)));
};

afterEach(async () => {
  client?.close();
  await stopServer(server);
  server = undefined;
});

describe('AgentClient on a stale keep-alive socket', () => {
  it('retries once on a new connection when the reused socket is reset at once', async () => {
    client = new AgentClient();
    const served = await serve((req, res, nth) => {
      // The second request on the first connection: the peer is gone (reset without answering).
      if (nth.connection === 1 && nth.onSocket === 2) req.socket.resetAndDestroy();
      else answer(res, `conn${nth.connection}`);
    });
    expect((await client.exec(served.url, 't', { command: 'first' })).stdout).toBe('conn1');
    expect((await client.exec(served.url, 't', { command: 'second' })).stdout).toBe('conn2');
    expect(served.requests).toEqual(['1:first', '1:second', '2:second']);
  });

  it('sends the next call on a new connection, once, after the agent closed the idle one', async () => {
    client = new AgentClient();
    let closed!: () => void;
    const firstClosed = new Promise<void>((resolve) => (closed = resolve));
    const served = await serve((req, res, nth) => {
      answer(res, `conn${nth.connection}`);
      if (nth.connection === 1) res.on('finish', () => req.socket.end().on('close', closed));
    });
    expect((await client.exec(served.url, 't', { command: 'first' })).stdout).toBe('conn1');
    await firstClosed;
    expect((await client.exec(served.url, 't', { command: 'second' })).stdout).toBe('conn2');
    expect(served.requests).toEqual(['1:first', '2:second']);
  });

  it('reports ECONNREFUSED (not delivered) when the agent behind the stale socket is gone', async () => {
    client = new AgentClient();
    const served = await serve((req, res, nth) => {
      if (nth.onSocket === 2) {
        server!.close();
        req.socket.resetAndDestroy();
      } else answer(res, 'ok');
    });
    await client.exec(served.url, 't', { command: 'first' });
    const error = await client.exec(served.url, 't', { command: 'second' }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: AgentErrorCode.Network, errno: 'ECONNREFUSED' });
    expect(served.connections()).toBe(1);
  });

  it('does not retry a reset on a new connection (the agent may have started the command)', async () => {
    client = new AgentClient();
    const served = await serve((req) => req.socket.resetAndDestroy());
    const error = await client.exec(served.url, 't', { command: 'only' }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: AgentErrorCode.Network, errno: 'ECONNRESET' });
    expect(served.requests).toEqual(['1:only']);
  });

  it('does not retry a reset that comes after the agent held the request (it crashed while running it)', async () => {
    client = new AgentClient();
    const served = await serve((req, res, nth) => {
      if (nth.onSocket === 2) setTimeout(() => req.socket.resetAndDestroy(), 300);
      else answer(res, 'ok');
    });
    await client.exec(served.url, 't', { command: 'first' });
    const error = await client.exec(served.url, 't', { command: 'long' }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: AgentErrorCode.Network, errno: 'ECONNRESET' });
    expect(served.requests).toEqual(['1:first', '1:long']);
  });

  it('retries at most once: a second reset is reported', async () => {
    client = new AgentClient();
    const served = await serve((req, res, nth) => {
      if (nth.connection === 1 && nth.onSocket === 1) answer(res, 'ok');
      else req.socket.resetAndDestroy();
    });
    await client.exec(served.url, 't', { command: 'first' });
    const error = await client.exec(served.url, 't', { command: 'second' }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: AgentErrorCode.Network, errno: 'ECONNRESET' });
    expect(served.requests).toEqual(['1:first', '1:second', '2:second']);
  });
});
