import { sendRaw, type RawResponse } from '@cli-mcp/testing';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { execResult } from '../../../test/fakes.js';
import { authConfig, startHttpApp, type HttpApp } from '../../../test/http-app.js';
import { attackRequest, METHODS, MCP_SPELLINGS, OPEN_HANDLERS, SESSION_SPELLINGS } from '../../../test/request-targets.js';

const TOKEN = 'boundary-token-7';

const send = (app: HttpApp, method: string, target: string, authorization?: string): Promise<RawResponse> =>
  sendRaw(app.port, attackRequest(app.port, method, target, authorization));

const protectedEntries = (app: HttpApp) => app.entries.entries.filter((entry) => !OPEN_HANDLERS.has(entry.handler));

/**
 * C-HTTP-5 with raw bytes on a real listening app: every spelling of `/mcp` and `/sessions/<id>` the router might
 * normalise, with every method, and no or a wrong token — none reaches a protected handler or the session layer.
 * The same spellings with the token do reach them, so the router really matched them.
 */
describe('auth boundary on the matched route (C-HTTP-5)', () => {
  let app: HttpApp;
  beforeAll(async () => {
    app = await startHttpApp({ config: authConfig(TOKEN), listen: true });
  });
  afterAll(async () => {
    await app.app.close();
  });
  // Each test judges only what it sent: the app is shared, the record of handlers and session calls is not (any
  // order of the tests gives the same verdicts: vitest --sequence.shuffle).
  beforeEach(() => {
    app.sessions.calls.length = 0;
    app.entries.entries.length = 0;
  });

  it.each([
    ['POST', '/mcp/'],
    ['POST', '/%6Dcp'],
    ['POST', '/%6dcp'],
    ['POST', 'http://127.0.0.1:{port}/mcp'],
    ['POST', '/mcp#fragment'],
    ['DELETE', '/%73essions/victim'],
    ['DELETE', '/sessions/victim/'],
  ])('%s %s without a token → 401, no handler, no session call (issue 7 reproduction)', async (method, target) => {
    const before = app.entries.entries.length;
    const response = await send(app, method, target);
    expect(response.status).toBe(401);
    expect(response.headers['www-authenticate']).toBe('Bearer');
    expect(JSON.parse(response.body)).toEqual({ jsonrpc: '2.0', error: { code: -32000, message: 'Unauthorized: missing or invalid bearer token' }, id: null });
    expect(app.entries.entries.slice(before)).toEqual([]);
    expect(app.sessions.calls).toEqual([]);
  });

  it('the same spellings with the token reach the handler: the router matched them', async () => {
    app.sessions.onExecute(async () => execResult({ stdout: 'owned' })).onEnd(async () => undefined);
    for (const target of ['/mcp/', '/%6Dcp', 'http://127.0.0.1:{port}/mcp', '/mcp#fragment']) {
      const response = await send(app, 'POST', target, `Bearer ${TOKEN}`);
      expect(response.status, target).toBe(200);
      expect(response.body, target).toContain('owned');
    }
    expect((await send(app, 'DELETE', '/%73essions/victim', `Bearer ${TOKEN}`)).status).toBe(204);
    expect(app.sessions.callsOf('execute')).toHaveLength(4);
    expect(app.sessions.callsOf('end').map((call) => call.args[0])).toEqual(['victim']);
  });

  it.each([...MCP_SPELLINGS, ...SESSION_SPELLINGS])('%s with every method, no or a wrong token: 401 when matched, else 404/400; never a handler', async (target) => {
    for (const method of METHODS) {
      for (const authorization of [undefined, 'Bearer wrong-token', `bearer ${TOKEN}`, TOKEN]) {
        const response = await send(app, method, target, authorization);
        expect([400, 401, 404], `${method} ${target} (${String(authorization)}) → ${response.status}`).toContain(response.status);
      }
    }
    expect(protectedEntries(app)).toEqual([]);
    expect(app.sessions.calls).toEqual([]);
  });

  it('leaves /live, /health and /metrics open, also with a pod-IP Host', async () => {
    app.sessions.onCheckHealth(async () => undefined);
    for (const target of ['/live', '/health', '/metrics']) {
      const response = await sendRaw(app.port, { method: 'GET', target, headers: [['Host', `10.128.4.7:${app.port}`]] });
      expect(response.status, target).toBe(200);
    }
  });

  it('answers an unmatched route 404 without entering any handler', async () => {
    const before = app.entries.entries.length;
    const response = await sendRaw(app.port, { method: 'GET', target: '/admin', headers: [['Host', 'localhost']] });
    expect(response.status).toBe(404);
    expect(app.entries.entries.length).toBe(before);
  });
});
