import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect as tlsConnect, type TLSSocket } from 'node:tls';
import { expect } from 'vitest';

export interface RawResponse {
  readonly status: number;
  readonly head: string;
  readonly body: string;
}

function parse(text: string): RawResponse {
  const end = text.indexOf('\r\n\r\n');
  const head = end < 0 ? text : text.slice(0, end);
  const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(head)?.[1] ?? 0);
  const body = end < 0 ? '' : text.slice(end + 4);
  return { status, head, body: /^transfer-encoding: chunked/im.test(head) ? dechunk(body) : body };
}

function dechunk(body: string): string {
  let out = '';
  let rest = body;
  for (;;) {
    const line = rest.indexOf('\r\n');
    const size = parseInt(rest.slice(0, line), 16);
    if (!(size > 0)) return out;
    out += rest.slice(line + 2, line + 2 + size);
    rest = rest.slice(line + 2 + size + 2);
  }
}

/** Writes `text` on a stream and reads until the other side closes it (every test request says Connection: close). */
export function exchange(socket: Socket | TLSSocket, text: string): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    let data = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => (data += chunk));
    socket.once('error', reject);
    socket.once('close', () => resolve(parse(data)));
    socket.write(text);
  });
}

/** Sends raw bytes to the gateway on a fresh connection and returns what came back before it closed. */
export function rawToGateway(port: number, text: string): Promise<RawResponse> {
  return exchange(connect({ host: '127.0.0.1', port }), text);
}

/**
 * Sends a CONNECT; on 200 the socket is the open tunnel, otherwise it carries the refusal. `localAddress` (another
 * 127.x.y.z) makes the connection come from there: how a test appears as a pod to the Kubernetes gateway.
 */
export function openTunnel(port: number, authority: string, localAddress?: string): Promise<{ response: RawResponse; socket: Socket }> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port, ...(localAddress ? { localAddress } : {}) });
    let data = Buffer.alloc(0);
    const onData = (chunk: Buffer): void => {
      data = Buffer.concat([data, chunk]);
      const text = data.toString('latin1');
      const end = text.indexOf('\r\n\r\n');
      if (end < 0) return;
      const response = parse(text);
      if (response.status === 200) {
        socket.off('data', onData);
        resolve({ response, socket });
      } else socket.once('close', () => resolve({ response: parse(data.toString('utf8')), socket }));
    };
    socket.on('data', onData);
    socket.once('error', reject);
    socket.write(`CONNECT ${authority} HTTP/1.1\r\nHost: ${authority}\r\n\r\n`);
  });
}

/** The client side of TLS inside a tunnel, trusting only the gateway's CA. */
export function tlsInTunnel(socket: Socket, servername: string | undefined, ca: string): Promise<TLSSocket> {
  return new Promise((resolve, reject) => {
    const tls = tlsConnect({ socket, servername, ca, ALPNProtocols: ['http/1.1'] });
    tls.once('secureConnect', () => resolve(tls));
    tls.once('error', reject);
  });
}

/** CONNECT + TLS + one raw request: the shortest path for hostile requests a normal client would not send. */
export async function requestThroughTunnel(port: number, authority: string, servername: string, ca: string, request: string): Promise<RawResponse> {
  const { response, socket } = await openTunnel(port, authority);
  if (response.status !== 200) throw new Error(`CONNECT ${authority} answered ${response.status}: ${response.body}`);
  return exchange(await tlsInTunnel(socket, servername, ca), request);
}

type Run = { code: number; stdout: string; stderr: string };

/** Runs `command` with the CA PEM written to a temp file (removed after); never throws on exit codes. */
function runWithCa(command: string, caPem: string, args: (caFile: string) => string[]): Promise<Run> {
  const dir = mkdtempSync(join(tmpdir(), 'egress-client-'));
  const caFile = join(dir, 'ca.pem');
  writeFileSync(caFile, caPem);
  return new Promise((resolve) => {
    execFile(command, args(caFile), (error, stdout, stderr) => {
      rmSync(dir, { recursive: true, force: true });
      const code = error ? Number((error as { code?: number }).code ?? 1) : 0;
      resolve({ code, stdout, stderr });
    });
  });
}

/** The real curl with the gateway as its proxy, trusting only the gateway's CA. */
export function curl(port: number, caPem: string, args: string[]): Promise<Run> {
  return runWithCa('curl', caPem, (caFile) => ['-sS', '--max-time', '5', '--proxy', `http://127.0.0.1:${port}`, '--cacert', caFile, ...args]);
}

/** python3 -c `script` with argv [...args, caFile]. */
export function python(script: string, args: string[], caPem: string): Promise<Run> {
  return runWithCa('python3', caPem, (caFile) => ['-c', script, ...args, caFile]);
}

/** Sends a request that must be refused with `status`, and checks that the upstream saw nothing of it. */
export async function expectRefusedUnsent(seen: readonly unknown[], status: number, send: () => Promise<RawResponse>): Promise<RawResponse> {
  const before = seen.length;
  const response = await send();
  expect(response.status).toBe(status);
  expect(seen.length).toBe(before);
  return response;
}
