import { SessionError, SessionErrorCode } from '@cli-mcp/session';
import { ConfigService } from '@nestjs/config';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { execResult, testConfig } from '../../test/fakes.js';
import { startHttpApp } from '../../test/http-app.js';
import type { ServerConfig } from '../config/server-config.js';
import { SERVER_CONFIG, SERVER_CONFIG_NAMESPACE } from '../tokens.js';
import { mcpAnswerMessages } from '@cli-mcp/testing';

const apps: NestFastifyApplication[] = [];

async function start(config: ServerConfig = testConfig()) {
  const started = await startHttpApp({ config });
  apps.push(started.app);
  return started;
}

afterEach(async () => {
  for (const app of apps.splice(0)) await app.close();
});

const MCP_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', host: '127.0.0.1:8080' };


describe('HTTP app', () => {
  it('exposes the one validated configuration through @nestjs/config, without reading the environment', async () => {
    const config = testConfig();
    process.env.CLI_MCP_SPEC_PROBE = 'from-env';
    try {
      const { app } = await start(config);
      const service = app.get(ConfigService);
      expect(service.get(SERVER_CONFIG_NAMESPACE)).toBe(config);
      expect(app.get(SERVER_CONFIG)).toBe(config);
      expect(service.get('CLI_MCP_SPEC_PROBE')).toBeUndefined();
    } finally {
      delete process.env.CLI_MCP_SPEC_PROBE;
    }
  });

  describe('DELETE /sessions/{id} (Go TestSessionDelete, C-HTTP-1)', () => {
    it('ends the session and answers 204', async () => {
      const { app, sessions } = await start();
      sessions.onEnd(async () => undefined);
      const response = await app.inject({ method: 'DELETE', url: '/sessions/inv-abc', headers: { host: 'localhost' } });
      expect(response.statusCode).toBe(204);
      expect(response.body).toBe('');
      expect(sessions.callsOf('end').map((call) => call.args[0])).toEqual(['inv-abc']);
    });

    it.each(['/sessions/', '/sessions', '/sessions/a/b'])('%s → 400 "missing session ID" without a backend call', async (url) => {
      const { app, sessions } = await start();
      const response = await app.inject({ method: 'DELETE', url, headers: { host: 'localhost' } });
      expect(response.statusCode).toBe(400);
      expect(response.body).toBe('missing session ID\n');
      expect(response.headers['content-type']).toBe('text/plain; charset=utf-8');
      expect(sessions.calls).toEqual([]);
    });

    it('refuses a malformed id with 400 "invalid session ID format" without a backend call', async () => {
      const { app, sessions } = await start();
      const response = await app.inject({ method: 'DELETE', url: '/sessions/INVALID_ID!', headers: { host: 'localhost' } });
      expect(response.statusCode).toBe(400);
      expect(response.body).toBe('invalid session ID format\n');
      expect(sessions.calls).toEqual([]);
    });

    it('answers a backend failure with 500 "failed to end session", never the internal error', async () => {
      const { app, sessions } = await start();
      sessions.onEnd(async () => {
        throw new SessionError(SessionErrorCode.BackendFailure, 'kill agent 4242: EPERM internal detail');
      });
      const response = await app.inject({ method: 'DELETE', url: '/sessions/inv-abc', headers: { host: 'localhost' } });
      expect(response.statusCode).toBe(500);
      expect(response.body).toBe('failed to end session\n');
    });
  });

  it('GET /live → 200 {"status":"alive"} with no dependencies (Go TestLive)', async () => {
    const { app, sessions } = await start();
    const response = await app.inject({ method: 'GET', url: '/live' });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ status: 'alive' });
    expect(sessions.calls).toEqual([]);
  });

  describe('GET /health (Go TestHealth, C-HTTP-2)', () => {
    it('→ 200 when the backend is healthy', async () => {
      const { app, sessions } = await start();
      sessions.onCheckHealth(async () => undefined);
      const response = await app.inject({ method: 'GET', url: '/health' });
      expect(response.statusCode).toBe(200);
      expect(response.json()).toMatchObject({ status: 'ok', info: { sessions: { status: 'up' } } });
    });

    it('→ 503 with the reason when it is not', async () => {
      const { app, sessions } = await start();
      sessions.onCheckHealth(async () => {
        throw new SessionError(SessionErrorCode.BackendFailure, 'health check: bash did not start');
      });
      const response = await app.inject({ method: 'GET', url: '/health' });
      expect(response.statusCode).toBe(503);
      expect(response.json()).toMatchObject({ status: 'error', error: { sessions: { status: 'down', message: 'health check: bash did not start' } } });
    });
  });

  it('GET/DELETE/PUT /mcp → 405 with Allow: POST', async () => {
    const { app } = await start();
    for (const method of ['GET', 'DELETE', 'PUT', 'PATCH'] as const) {
      const response = await app.inject({ method, url: '/mcp', headers: { host: 'localhost' } });
      expect(response.statusCode).toBe(405);
      expect(response.headers.allow).toBe('POST');
    }
  });

  describe('POST /mcp', () => {
    it('serves initialize, tools/list and ping statelessly without X-Session-ID and without touching sessions', async () => {
      const { app, sessions } = await start();
      for (const [id, method, params] of [
        [1, 'initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } }],
        [2, 'tools/list', {}],
        [3, 'ping', {}],
      ] as const) {
        const response = await app.inject({ method: 'POST', url: '/mcp', headers: MCP_HEADERS, payload: { jsonrpc: '2.0', id, method, params } });
        expect(response.statusCode).toBe(200);
        const [message] = mcpAnswerMessages(response.body);
        expect(message).toMatchObject({ jsonrpc: '2.0', id });
        expect(message).toHaveProperty('result');
      }
      expect(sessions.calls).toEqual([]);
    });

    it('reads X-Session-ID case-insensitively and runs bash in that session', async () => {
      const { app, sessions } = await start();
      sessions.onExecute(async () => execResult({ stdout: 'ok' }));
      const response = await app.inject({
        method: 'POST',
        url: '/mcp',
        headers: { ...MCP_HEADERS, 'X-SESSION-ID': 'sess-42' },
        payload: { jsonrpc: '2.0', id: 5, method: 'tools/call', params: { name: 'bash', arguments: { command: 'echo ok' } } },
      });
      const [message] = mcpAnswerMessages(response.body);
      expect(message).toMatchObject({ id: 5, result: { content: [{ type: 'text', text: 'ok\n[exit 0 · 5 ms]' }] } });
      expect(sessions.callsOf('execute')[0]?.args[0]).toBe('sess-42');
    });

    it('answers a bash call without X-Session-ID with the tool error', async () => {
      const { app } = await start();
      const response = await app.inject({
        method: 'POST',
        url: '/mcp',
        headers: MCP_HEADERS,
        payload: { jsonrpc: '2.0', id: 6, method: 'tools/call', params: { name: 'bash', arguments: { command: 'ls' } } },
      });
      expect(mcpAnswerMessages(response.body)[0]).toMatchObject({
        result: { content: [{ type: 'text', text: 'missing X-Session-ID header' }], isError: true },
      });
    });

    it('accepts a body over 1 MiB and answers a too-large command with the tool error', async () => {
      const { app, sessions } = await start();
      const command = 'x'.repeat(2 * 1024 * 1024);
      const response = await app.inject({
        method: 'POST',
        url: '/mcp',
        headers: { ...MCP_HEADERS, 'x-session-id': 's-1' },
        payload: { jsonrpc: '2.0', id: 9, method: 'tools/call', params: { name: 'bash', arguments: { command } } },
      });
      expect(mcpAnswerMessages(response.body)[0]).toMatchObject({
        result: { content: [{ type: 'text', text: 'command is too large (2097152 bytes; the limit is 1048576)' }], isError: true },
      });
      expect(sessions.calls).toEqual([]);
    });
  });

  describe('transport errors on /mcp in JSON-RPC shape', () => {
    it('answers malformed JSON with 400 and a -32700 parse error', async () => {
      const { app } = await start();
      const response = await app.inject({ method: 'POST', url: '/mcp', headers: MCP_HEADERS, payload: '{not json' });
      expect(response.statusCode).toBe(400);
      expect(response.json()).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32700, message: expect.stringMatching(/^Parse error: /) } });
    });

    it('answers a body over the 8 MiB limit with 413 and a -32600 error', async () => {
      const { app } = await start();
      const response = await app.inject({ method: 'POST', url: '/mcp', headers: MCP_HEADERS, payload: `"${'a'.repeat(9 * 1024 * 1024)}"` });
      expect(response.statusCode).toBe(413);
      expect(response.json()).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32600, message: 'Request body too large (limit 8388608 bytes)' } });
    });

    it('leaves other routes to Nest', async () => {
      const { app } = await start();
      const response = await app.inject({ method: 'GET', url: '/nope' });
      expect(response.statusCode).toBe(404);
    });
  });

  describe('boundary guard', () => {
    it('refuses a rebinding Host with 403 and the JSON-RPC error body', async () => {
      const { app } = await start();
      const response = await app.inject({ method: 'POST', url: '/mcp', headers: { ...MCP_HEADERS, host: 'evil.example' }, payload: {} });
      expect(response.statusCode).toBe(403);
      expect(response.json()).toEqual({ jsonrpc: '2.0', error: { code: -32000, message: 'Invalid Host: evil.example' }, id: null });
    });

    it('requires the bearer token on /mcp and /sessions when configured', async () => {
      const config = testConfig();
      const { app, sessions } = await start({ ...config, http: { ...config.http, authToken: 's3cret' } });
      sessions.onEnd(async () => undefined);
      const denied = await app.inject({ method: 'DELETE', url: '/sessions/a', headers: { host: 'localhost', authorization: 'Bearer nope' } });
      expect(denied.statusCode).toBe(401);
      expect(denied.headers['www-authenticate']).toBe('Bearer');
      const allowed = await app.inject({ method: 'DELETE', url: '/sessions/a', headers: { host: 'localhost', authorization: 'Bearer s3cret' } });
      expect(allowed.statusCode).toBe(204);
      expect((await app.inject({ method: 'GET', url: '/live' })).statusCode).toBe(200);
    });
  });

  it('GET /metrics → Prometheus text of the app registry', async () => {
    const { app } = await start();
    await app.inject({ method: 'POST', url: '/mcp', headers: MCP_HEADERS, payload: { jsonrpc: '2.0', id: 1, method: 'ping' } });
    const response = await app.inject({ method: 'GET', url: '/metrics' });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toContain('text/plain');
    expect(response.body).toContain('mcp_calls_total{server="cli-mcp-server",method="ping",name="",success="true"} 1');
  });
});
