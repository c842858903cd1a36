import { mkdtempSync, rmSync } from 'node:fs';
import { connect, createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startEgressRelay } from './egress-relay.js';

/** Sends `data`, half-closes, and collects everything until the relay closes the connection. */
function exchange(port: number, data: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect({ port, host: '127.0.0.1', allowHalfOpen: true });
    let received = '';
    socket.on('data', (chunk: Buffer) => (received += chunk.toString('utf8')));
    socket.once('error', reject);
    socket.once('close', () => resolve(received));
    socket.end(data);
  });
}

function close(server: Server | undefined): Promise<void> {
  return new Promise((resolve) => (server?.listening ? server.close(() => resolve()) : resolve()));
}

describe(startEgressRelay.name, () => {
  let dir: string;
  let relay: Server | undefined;
  let gateway: Server | undefined;
  const socketPath = (): string => join(dir, 'gateway.sock');
  const relayPort = (): number => (relay!.address() as AddressInfo).port;

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'egress-relay-'));
    relay = await startEgressRelay({ socketPath: socketPath(), port: 0 });
  });
  afterEach(async () => {
    await close(relay);
    await close(gateway);
    relay = gateway = undefined;
    rmSync(dir, { recursive: true, force: true });
  });

  it('splices each loopback connection to the gateway socket, both ways, half-closes included', async () => {
    const seen: string[] = [];
    gateway = createServer({ allowHalfOpen: true }, (socket: Socket) => {
      let request = '';
      socket.on('data', (chunk: Buffer) => (request += chunk.toString('utf8')));
      // Answers only once the client's half-close arrived: the end was passed on, and the way back stays open.
      socket.once('end', () => {
        seen.push(request);
        socket.end(`got ${request.length} bytes`);
      });
    });
    await new Promise<void>((resolve) => gateway!.listen(socketPath(), resolve));
    const big = 'x'.repeat(1_000_000);
    const [one, two] = await Promise.all([exchange(relayPort(), 'CONNECT a:443 HTTP/1.1\r\n\r\n'), exchange(relayPort(), big)]);
    expect(one).toBe('got 26 bytes');
    expect(two).toBe('got 1000000 bytes');
    expect(seen.sort((a, b) => a.length - b.length)).toEqual(['CONNECT a:443 HTTP/1.1\r\n\r\n', big]);
  });

  it('answers 502 naming the gateway when its socket is gone or refuses, instead of a bare reset', async () => {
    const answer = await exchange(relayPort(), 'CONNECT api.example:443 HTTP/1.1\r\nHost: api.example:443\r\n\r\n');
    expect(answer).toMatch(/^HTTP\/1\.1 502 cli-mcp egress gateway unreachable\r\n/);
    expect(JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4))).toEqual({
      error: 'gateway_unavailable',
      message: 'the egress gateway of this sandbox is not reachable (ENOENT): the session has ended or the server is stopping',
    });
  });

  it('closes the client when the gateway cuts an established stream', async () => {
    const cut = new Promise<void>((resolve) => {
      gateway = createServer((socket) => socket.once('data', () => {
        socket.destroy();
        resolve();
      }));
    });
    await new Promise<void>((resolve) => gateway!.listen(socketPath(), resolve));
    const client = connect({ port: relayPort(), host: '127.0.0.1' });
    const closed = new Promise<void>((resolve) => client.once('close', () => resolve()));
    client.on('error', () => undefined);
    client.write('GET / HTTP/1.1\r\n\r\n');
    await cut;
    await closed;
    expect(client.destroyed).toBe(true);
  });
});
