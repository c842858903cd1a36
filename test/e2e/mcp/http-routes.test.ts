import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { sendRaw } from '@cli-mcp/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bash, connectHttpClient, structuredOf } from './support/mcp-client.js';
import { descendantsOf, removeDir, sessionDirs, startHttpServer, tempDir, type ServerProcess, useHttpServer } from './support/server-process.js';

const MCP_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };


describe('HTTP routes of the built server (Go server_test inventory)', () => {

  const server = useHttpServer();

  it('GET /live → 200 {"status":"alive"}', async () => {
    const response = await fetch(`${server().baseUrl}/live`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ status: 'alive' });
  });

  it('GET /health → 200 when the local backend can start sandboxes', async () => {
    const response = await fetch(`${server().baseUrl}/health`);
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ status: 'ok', info: { sessions: { status: 'up' } } });
  });

  it('initialize, tools/list and ping without X-Session-ID allocate nothing; exactly one tool', async () => {
    const client = await connectHttpClient(server().mcpUrl);
    const { tools } = await client.listTools();
    await client.ping();
    await client.close();
    expect(tools.map((tool) => tool.name)).toEqual(['bash']);
    expect(client.getServerVersion()?.name).toBe('cli-mcp-server');
    expect(sessionDirs(server())).toEqual([]);
    expect(descendantsOf(server().pid)).toEqual([]);
    const metrics = await (await fetch(`${server().baseUrl}/metrics`)).text();
    expect(metrics).toMatch(/mcp_calls_total\{server="cli-mcp-server",method="tools\/list",name="",success="true"\} [1-9]/);
    expect(metrics).not.toMatch(/cli_mcp_session_lookups_total\{/);
  });

  it('GET and DELETE /mcp → 405 with Allow: POST', async () => {
    for (const method of ['GET', 'DELETE']) {
      const response = await fetch(server().mcpUrl, { method });
      expect(response.status).toBe(405);
      expect(response.headers.get('allow')).toBe('POST');
    }
  });

  it('refuses a DNS-rebinding Host with 403 and the JSON-RPC error body', async () => {
    // fetch() cannot forge Host; a raw request can.
    const { request } = await import('node:http');
    const url = new URL(server().mcpUrl);
    const answer = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = request({ host: url.hostname, port: url.port, path: '/mcp', method: 'POST', headers: { ...MCP_HEADERS, host: 'attacker.example:8080' } }, (res) => {
        let body = '';
        res.on('data', (chunk: Buffer) => (body += chunk.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      });
      req.on('error', reject);
      req.end('{}');
    });
    expect(answer.status).toBe(403);
    expect(JSON.parse(answer.body)).toEqual({ jsonrpc: '2.0', error: { code: -32000, message: 'Invalid Host: attacker.example:8080' }, id: null });
  });

  describe('DELETE /sessions/{id}', () => {
    it('→ 204 for an unknown session (idempotent)', async () => {
      const response = await fetch(`${server().baseUrl}/sessions/never-used`, { method: 'DELETE' });
      expect(response.status).toBe(204);
    });

    it('→ 400 "missing session ID" for an empty id', async () => {
      const response = await fetch(`${server().baseUrl}/sessions/`, { method: 'DELETE' });
      expect(response.status).toBe(400);
      expect(await response.text()).toBe('missing session ID\n');
    });

    it('→ 400 "invalid session ID format" for a malformed id', async () => {
      const response = await fetch(`${server().baseUrl}/sessions/INVALID_ID!`, { method: 'DELETE' });
      expect(response.status).toBe(400);
      expect(await response.text()).toBe('invalid session ID format\n');
    });
  });
});

describe('HTTP with --auth-token-file', () => {
  let server: ServerProcess;
  let dir: string;

  beforeAll(async () => {
    dir = tempDir('auth');
    const tokenFile = join(dir, 'token');
    writeFileSync(tokenFile, 'e2e-token-123\n');
    server = await startHttpServer({ args: ['--auth-token-file', tokenFile] });
  });
  afterAll(async () => {
    expect(await server.stop()).toBe(0);
    removeDir(dir);
  });

  it('answers a wrong or missing bearer with 401 and WWW-Authenticate: Bearer', async () => {
    for (const headers of [{}, { authorization: 'Bearer wrong' }] as Array<Record<string, string>>) {
      const response = await fetch(server.mcpUrl, { method: 'POST', headers: { ...MCP_HEADERS, ...headers }, body: '{}' });
      expect(response.status).toBe(401);
      expect(response.headers.get('www-authenticate')).toBe('Bearer');
    }
    const deletion = await fetch(`${server.baseUrl}/sessions/x`, { method: 'DELETE', headers: { authorization: 'Bearer wrong' } });
    expect(deletion.status).toBe(401);
  });

  // C-HTTP-5 (issue 7): the router normalises these spellings to /mcp and /sessions/{id}; the raw-path check let
  // them through. Raw bytes, because HTTP clients clean such targets up.
  it('refuses every spelling of /mcp and /sessions/{id} without the bearer: no sandbox made, none ended', async () => {
    const port = Number(new URL(server.baseUrl).port);
    const owner = await connectHttpClient(server.mcpUrl, 'kept-session', { Authorization: 'Bearer e2e-token-123' });
    await bash(owner, 'export MARK=still-mine');
    const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'bash', arguments: { command: 'echo owned' } } });
    const headers: Array<[string, string]> = [
      ['Host', `127.0.0.1:${port}`],
      ['Content-Type', 'application/json'],
      ['Accept', 'application/json, text/event-stream'],
      ['X-Session-ID', 'intruder'],
    ];
    for (const target of ['/mcp/', '/%6Dcp', '/%6dcp', `http://127.0.0.1:${port}/mcp`, '/mcp#x', '//mcp', '/MCP']) {
      const response = await sendRaw(port, { method: 'POST', target, headers, body });
      expect([401, 404], `POST ${target} → ${response.status}`).toContain(response.status);
      expect(response.body).not.toContain('owned');
    }
    for (const target of ['/%73essions/kept-session', '/sessions/kept-session/', '/sessions/%6Bept-session', '//sessions/kept-session']) {
      const response = await sendRaw(port, { method: 'DELETE', target, headers: [['Host', `127.0.0.1:${port}`]] });
      expect([401, 404], `DELETE ${target} → ${response.status}`).toContain(response.status);
    }
    expect(sessionDirs(server)).toEqual(['kept-session']);
    expect(structuredOf(await bash(owner, 'echo "$MARK"')).stdout).toBe('still-mine');
    await owner.close();
  });

  it('keeps the probes open to a pod-IP Host but refuses a rebinding name on them too', async () => {
    const port = Number(new URL(server.baseUrl).port);
    for (const target of ['/live', '/health', '/metrics']) {
      expect((await sendRaw(port, { method: 'GET', target, headers: [['Host', `10.128.0.12:${port}`]] })).status, target).toBe(200);
      expect((await sendRaw(port, { method: 'GET', target, headers: [['Host', `rebound.attacker.example:${port}`]] })).status, target).toBe(403);
    }
  });

  it('serves MCP with the right bearer, and never logs the token', async () => {
    const client = await connectHttpClient(server.mcpUrl, undefined, { Authorization: 'Bearer e2e-token-123' });
    expect((await client.listTools()).tools).toHaveLength(1);
    await client.close();
    expect((await fetch(`${server.baseUrl}/live`)).status).toBe(200);
    expect(server.stderr()).not.toContain('e2e-token-123');
  });
});
