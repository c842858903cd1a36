import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { AgentClient } from './agent-client.js';
import { AgentError, AgentErrorCode } from './agent-error.js';
import type { ExecResponse } from './wire.js';

interface Seen {
  method?: string;
  url?: string;
  headers: IncomingMessage['headers'];
  body: string;
}

const okExec: ExecResponse = {
  stdout: 'hi', stderr: '', exit_code: 0, duration_ms: 1, timed_out: false, cancelled: false,
  truncated: false, state_reset: false, stdout_bytes: 2, stderr_bytes: 0,
};

let server: Server | undefined;
const client = new AgentClient({ maxResponseBytes: 4096, controlTimeoutMs: 2000 });

async function serve(handler: (req: IncomingMessage, res: ServerResponse, seen: Seen) => void): Promise<{ url: string; seen: Seen[] }> {
  const seen: Seen[] = [];
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      const record = { method: req.method, url: req.url, headers: req.headers, body };
      seen.push(record);
      handler(req, res, record);
    });
  });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen };
}

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

afterEach(async () => {
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  server = undefined;
});

describe(AgentClient.name, () => {
  it('POSTs /exec as JSON with the bearer token and returns the response', async () => {
    const { url, seen } = await serve((_req, res) => json(res, 200, okExec));
    const response = await client.exec(url, 'tok-123', { command: 'echo hi', timeout: 60 });
    expect(response).toEqual(okExec);
    expect(seen[0]).toMatchObject({ method: 'POST', url: '/exec' });
    expect(seen[0]!.headers.authorization).toBe('Bearer tok-123');
    expect(seen[0]!.headers['content-type']).toBe('application/json');
    expect(JSON.parse(seen[0]!.body)).toEqual({ command: 'echo hi', timeout: 60 });
  });

  it.each([401, 500, 503])('turns status %i without a code into UnexpectedStatus carrying the agent message, never the token', async (status) => {
    const { url } = await serve((_req, res) => json(res, status, { error: 'agent not assigned' }));
    const error = await client.exec(url, 'secret-token', { command: 'true' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AgentError);
    // C-AG-15: the text alone decides nothing, however familiar it reads.
    expect(error).toMatchObject({ code: AgentErrorCode.UnexpectedStatus, op: 'execute', status, agentMessage: 'agent not assigned' });
    expect((error as Error).message).toBe(`execute ${url}/exec: unexpected status ${status}`);
    expect((error as Error).message).not.toContain('secret-token');
  });

  it('takes the code of the agent envelope; an unknown code is UnexpectedStatus', async () => {
    let code = 'not_assigned';
    const { url } = await serve((_req, res) => json(res, 503, { error: 'any words', code }));
    await expect(client.exec(url, 't', { command: 'true' })).rejects.toMatchObject({ code: AgentErrorCode.NotAssigned, status: 503, agentMessage: 'any words' });
    code = 'from_a_newer_agent';
    await expect(client.exec(url, 't', { command: 'true' })).rejects.toMatchObject({ code: AgentErrorCode.UnexpectedStatus, status: 503 });
    code = 'constructor';
    await expect(client.exec(url, 't', { command: 'true' })).rejects.toMatchObject({ code: AgentErrorCode.UnexpectedStatus });
  });

  it('keeps at most 512 bytes of a non-JSON error body', async () => {
    const { url } = await serve((_req, res) => res.writeHead(500).end('x'.repeat(2000)));
    const error = (await client.exec(url, 't', { command: 'true' }).catch((e: unknown) => e)) as AgentError;
    expect(error.agentMessage).toHaveLength(512);
  });

  it('reports a 200 with invalid JSON as a Decode error', async () => {
    const { url } = await serve((_req, res) => res.writeHead(200).end('not-json'));
    await expect(client.exec(url, 't', { command: 'true' })).rejects.toMatchObject({ code: AgentErrorCode.BadResponse, status: 200 });
  });

  it('rejects a response larger than the cap', async () => {
    const { url } = await serve((_req, res) => json(res, 200, { ...okExec, stdout: 'y'.repeat(10_000) }));
    await expect(client.exec(url, 't', { command: 'true' })).rejects.toMatchObject({
      code: AgentErrorCode.BadResponse,
      message: expect.stringContaining('exceeds maximum size of 4096 bytes'),
    });
  });

  it('reports an unreachable agent as a Network error naming the URL', async () => {
    const error = (await client.exec('http://127.0.0.1:1', 't', { command: 'true' }).catch((e: unknown) => e)) as AgentError;
    expect(error).toMatchObject({ code: AgentErrorCode.Network, op: 'execute', errno: 'ECONNREFUSED' });
    expect(error.message).toContain('127.0.0.1:1/exec');
  });

  it('aborts a running exec when the signal fires and closes the connection (the agent cancels on disconnect)', async () => {
    let closed!: () => void;
    let received!: () => void;
    const connectionClosed = new Promise<void>((resolve) => (closed = resolve));
    const requestReceived = new Promise<void>((resolve) => (received = resolve));
    const { url } = await serve((req) => {
      req.socket.on('close', closed);
      received();
    });
    const controller = new AbortController();
    const pending = client.exec(url, 't', { command: 'sleep 30' }, controller.signal);
    await requestReceived;
    controller.abort();
    await expect(pending).rejects.toMatchObject({ code: AgentErrorCode.Aborted });
    await connectionClosed;
  });

  it('fails fast for an already-aborted signal without sending anything', async () => {
    const { url, seen } = await serve((_req, res) => json(res, 200, okExec));
    await expect(client.exec(url, 't', { command: 'true' }, AbortSignal.abort())).rejects.toMatchObject({ code: AgentErrorCode.Aborted });
    expect(seen).toHaveLength(0);
  });

  it('POSTs /assign with the token in the body and no Authorization header', async () => {
    const { url, seen } = await serve((_req, res) => json(res, 200, {}));
    await client.assign(url, 'tok-9');
    expect(seen[0]).toMatchObject({ method: 'POST', url: '/assign' });
    expect(seen[0]!.headers.authorization).toBeUndefined();
    expect(JSON.parse(seen[0]!.body)).toEqual({ token: 'tok-9' });
  });

  it('maps a 409 already_assigned on /assign to its code with op assign', async () => {
    const { url } = await serve((_req, res) => json(res, 409, { error: 'already assigned', code: 'already_assigned' }));
    await expect(client.assign(url, 't')).rejects.toMatchObject({ code: AgentErrorCode.AlreadyAssigned, op: 'assign', status: 409 });
  });

  it('POSTs /cancel with the bearer and the request id', async () => {
    const { url, seen } = await serve((_req, res) => json(res, 200, { cancelled: true }));
    expect(await client.cancel(url, 'tok', 'mcp-7')).toEqual({ cancelled: true });
    expect(seen[0]!.headers.authorization).toBe('Bearer tok');
    expect(JSON.parse(seen[0]!.body)).toEqual({ request_id: 'mcp-7' });
  });

  it('POSTs /output with the bearer and the request id', async () => {
    const { url, seen } = await serve((_req, res) => json(res, 200, { running: true, stdout: 'x', stderr: '', stdout_bytes: 1, stderr_bytes: 0 }));
    expect(await client.output(url, 'tok', 'mcp-8')).toMatchObject({ running: true, stdout: 'x' });
    expect(seen[0]).toMatchObject({ method: 'POST', url: '/output' });
    expect(seen[0]!.headers.authorization).toBe('Bearer tok');
    expect(JSON.parse(seen[0]!.body)).toEqual({ request_id: 'mcp-8' });
  });

  it('GETs /health without auth', async () => {
    const { url, seen } = await serve((_req, res) => json(res, 200, { status: 'ok', assigned: false, busy: false }));
    expect(await client.health(url)).toEqual({ status: 'ok', assigned: false, busy: false });
    expect(seen[0]).toMatchObject({ method: 'GET', url: '/health' });
    expect(seen[0]!.headers.authorization).toBeUndefined();
  });

  it('times out control calls that get no answer', async () => {
    const slow = new AgentClient({ controlTimeoutMs: 50 });
    const { url } = await serve(() => undefined);
    await expect(slow.health(url)).rejects.toMatchObject({ code: AgentErrorCode.Network, message: expect.stringContaining('no response within 50 ms') });
    slow.close();
  });

  it('talks to an agent on a Unix socket named unix:<path>, and reports a missing socket as ENOENT', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'agent-client-'));
    const socketPath = join(dir, 'agent.sock');
    server = createServer((req, res) => json(res, 200, { ...okExec, stdout: `${req.method} ${req.url}` }));
    await new Promise<void>((resolve) => server!.listen(socketPath, resolve));
    expect((await client.exec(`unix:${socketPath}`, 't', { command: 'true' })).stdout).toBe('POST /exec');
    const missing = await client.health(`unix:${join(dir, 'gone.sock')}`).catch((e: unknown) => e);
    expect(missing).toMatchObject({ code: AgentErrorCode.Network, errno: 'ENOENT', message: expect.stringContaining(`unix:${dir}/gone.sock/health`) });
    rmSync(dir, { recursive: true, force: true });
  });

  it('keeps tokens apart across 20 concurrent calls', async () => {
    const { url } = await serve((req, res) => json(res, 200, { ...okExec, stdout: req.headers.authorization }));
    const tokens = Array.from({ length: 20 }, (_, i) => `tok-${i}`);
    const results = await Promise.all(tokens.map((t) => client.exec(url, t, { command: 'true' })));
    expect(results.map((r) => r.stdout)).toEqual(tokens.map((t) => `Bearer ${t}`));
  });
});
