import type { AddressInfo } from 'node:net';
import { request, type Server } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import type { AgentLog } from '../logging/agent-logger.js';
import { AssignmentState } from '../state/assignment-state.js';
import { AgentError, AgentErrorCode } from '@cli-mcp/agent-client';
import { ok, type AgentRoute, type RouteRequest } from './agent-route.js';
import { createAgentHttpServer } from './agent-http-server.js';

const TOKEN = 'spec-token';

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  json: unknown;
}

/** Routes that record what reached them: a handler that runs for a request it must not see fails the test. */
function harness(options: { token?: string; handle?: (request: RouteRequest) => ReturnType<AgentRoute['handle']> } = {}) {
  const reached: Array<{ path: string; body: string }> = [];
  const logged: string[] = [];
  let stopping = false;
  const route = (path: string, method: 'GET' | 'POST', bearer: boolean): [string, AgentRoute] => [path, {
    method, bearer, handle: (req) => {
      reached.push({ path, body: req.body.toString() });
      return options.handle ? options.handle(req) : ok({ path });
    },
  }];
  const server = createAgentHttpServer({
    routes: new Map([route('/exec', 'POST', true), route('/assign', 'POST', false), route('/health', 'GET', false)]),
    assignment: new AssignmentState('token' in options ? options.token : TOKEN),
    stopping: () => stopping,
    log: recordingLog(logged),
  });
  return { server, reached, logged, stop: () => (stopping = true) };
}

/** A strict log fake: only `error` may be called (the pipeline logs nothing else). */
function recordingLog(logged: string[]): AgentLog {
  const unexpected = (): never => {
    throw new Error('unexpected log call');
  };
  return { fatal: unexpected, warn: unexpected, info: unexpected, debug: unexpected, trace: unexpected, error: (_fields: unknown, message?: string) => void logged.push(message ?? '') } as unknown as AgentLog;
}

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((resolve) => { s.closeAllConnections(); s.close(resolve); })));
});

async function listen(server: Server): Promise<number> {
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

function call(port: number, method: string, path: string, options: { body?: string | Buffer; headers?: Record<string, string>; chunked?: boolean } = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, method, path, agent: false, headers: options.headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, json: text === '' ? undefined : JSON.parse(text) }));
    });
    req.on('error', reject);
    if (options.chunked && options.body !== undefined) {
      const body = Buffer.from(options.body);
      for (let offset = 0; offset < body.length; offset += 64 * 1024) req.write(body.subarray(offset, offset + 64 * 1024));
      req.end();
    } else req.end(options.body);
  });
}

const bearer = { authorization: `Bearer ${TOKEN}` };

describe(createAgentHttpServer.name, () => {
  it('runs a matched route with its raw body and answers JSON', async () => {
    const h = harness();
    const port = await listen(h.server);
    const answer = await call(port, 'POST', '/exec?trace=1', { body: '{"command":"true"}', headers: { ...bearer, 'content-type': 'text/plain' } });
    expect(answer).toMatchObject({ status: 200, json: { path: '/exec' }, headers: { 'content-type': 'application/json; charset=utf-8' } });
    expect(h.reached).toEqual([{ path: '/exec', body: '{"command":"true"}' }]);
  });

  it('decides the bearer on the matched route, in the C-AG-1 order, before the body is read', async () => {
    const unassigned = harness({ token: undefined });
    const idle = await listen(unassigned.server);
    expect(await call(idle, 'POST', '/exec', { body: 'x'.repeat(2 << 20) })).toMatchObject({ status: 503, json: { error: 'agent not assigned', code: 'not_assigned' } });
    const h = harness();
    const port = await listen(h.server);
    expect(await call(port, 'POST', '/exec', { body: 'x'.repeat(2 << 20) })).toMatchObject({ status: 401, json: { error: 'missing or invalid authorization header' } });
    expect(await call(port, 'POST', '/exec', { headers: { authorization: `bearer ${TOKEN}` } })).toMatchObject({ status: 401 });
    expect(await call(port, 'POST', '/exec', { headers: { authorization: 'Bearer wrong' } })).toMatchObject({ status: 401, json: { error: 'unauthorized' } });
    // Open routes take no bearer at all.
    expect(await call(port, 'POST', '/assign', { body: '{}' })).toMatchObject({ status: 200 });
    expect(h.reached.map((r) => r.path)).toEqual(['/assign']);
    expect(unassigned.reached).toEqual([]);
  });

  it('matches paths as sent: every other spelling of a route is 404 and reaches no handler', async () => {
    const h = harness();
    const port = await listen(h.server);
    for (const path of ['/exec/', '//exec', '/EXEC', '/%65xec', '/./exec', '/exec/.', '/assign/../exec', '/exec;a', '/exec%3Fx', '/']) {
      expect((await call(port, 'POST', path, { headers: bearer, body: '{}' })).json, path).toEqual({ error: 'not found', code: 'not_found' });
    }
    expect(h.reached).toEqual([]);
  });

  it('answers another method on a known path with 405 and Allow; HEAD on a GET route without a body', async () => {
    const h = harness();
    const port = await listen(h.server);
    const wrong = await call(port, 'GET', '/exec', { headers: bearer });
    expect(wrong).toMatchObject({ status: 405, json: { error: 'method not allowed' }, headers: { allow: 'POST' } });
    expect(await call(port, 'DELETE', '/health')).toMatchObject({ status: 405, headers: { allow: 'GET, HEAD' } });
    const head = await call(port, 'HEAD', '/health');
    expect(head).toMatchObject({ status: 200, json: undefined });
    expect(h.reached.map((r) => r.path)).toEqual(['/health']);
  });

  it('refuses bodies over 1 MiB with 413 whether declared or chunked, and closes the connection', async () => {
    const h = harness();
    const port = await listen(h.server);
    const declared = await call(port, 'POST', '/assign', { body: 'x'.repeat((1 << 20) + 1) });
    expect(declared).toMatchObject({ status: 413, json: { error: 'request body too large' }, headers: { connection: 'close' } });
    const chunked = await call(port, 'POST', '/assign', { body: 'x'.repeat((1 << 20) + 1), chunked: true });
    expect(chunked).toMatchObject({ status: 413, json: { error: 'request body too large' } });
    expect(await call(port, 'POST', '/assign', { body: 'x'.repeat(1 << 20), chunked: true })).toMatchObject({ status: 200 });
    expect(h.reached).toHaveLength(1);
  });

  it('maps an AgentError to its status and text, anything else to a logged 500 without details', async () => {
    let failure: unknown = new AgentError(AgentErrorCode.CommandRequired);
    const h = harness({ handle: () => { throw failure; } });
    const port = await listen(h.server);
    expect(await call(port, 'POST', '/exec', { headers: bearer })).toMatchObject({ status: 400, json: { error: 'command is required', code: 'command_required' } });
    failure = new TypeError('secret detail at /some/file.js:1');
    const internal = await call(port, 'POST', '/exec', { headers: bearer });
    expect(internal).toMatchObject({ status: 500, json: { error: 'internal error', code: 'internal' } });
    expect(h.logged.join('')).toContain('unexpected error in request');
  });

  it('while stopping answers every request 503 and closes keep-alive connections after the answer', async () => {
    const h = harness();
    const port = await listen(h.server);
    h.stop();
    for (const [method, path] of [['POST', '/exec'], ['GET', '/health'], ['GET', '/nope']] as const) {
      expect(await call(port, method, path, { headers: { ...bearer, connection: 'keep-alive' } })).toMatchObject({
        status: 503, json: { error: 'agent shutting down', code: 'shutting_down' }, headers: { connection: 'close' },
      });
    }
    expect(h.reached).toEqual([]);
  });

  it('tells the handler when its client goes away before the answer (C-AG-4)', async () => {
    let seen: ((signal: AbortSignal) => void) | undefined;
    const gone = new Promise<AbortSignal>((resolve) => (seen = resolve));
    const h = harness({ handle: (req) => new Promise(() => seen?.(req.clientGone)) });
    const port = await listen(h.server);
    const req = request({ host: '127.0.0.1', port, method: 'POST', path: '/exec', agent: false, headers: bearer });
    req.on('error', () => undefined);
    req.end('{}');
    const signal = await gone;
    expect(signal.aborted).toBe(false);
    const aborted = new Promise((resolve) => signal.addEventListener('abort', resolve));
    req.destroy();
    await aborted;
    expect(signal.aborted).toBe(true);
  });
});
