import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { sendRaw } from '@cli-mcp/testing';
import { afterAll, describe, expect, it } from 'vitest';
import { startAgent, stopAllAgents, TOKEN } from './agent-harness.js';

/** Every way an attacker might spell `/exec` to slip past the bearer check (C-AG-1), sent byte for byte. */
const TARGETS = [
  '/exec/', '//exec', '/EXEC', '/Exec', '/%65xec', '/%2Fexec', '/./exec', '/exec/.', '/x/../exec', '/assign/../exec',
  '/health/../exec', '/exec;x', '/exec%3F', '/exec%00', '/exec#x', '/ exec', 'exec', '*',
  'http://127.0.0.1/exec', 'http://127.0.0.1:8090//exec', '/exec/..;/',
];

/**
 * The agent matches request paths itself (Node's server, a five-route table): these attacks, kept as tests, show
 * that no spelling of a protected route reaches a handler without the bearer check its route demands, and that
 * the command it carries never runs (docs/agent.md, "HTTP layer").
 */
describe('sandbox-agent: odd request targets and methods never run a command without the bearer', () => {
  afterAll(stopAllAgents);

  it.each([['assigned', TOKEN], ['unassigned', null]] as const)('%s agent: every spelling is 404, or the bearer check of /exec', async (_state, token) => {
    const agent = await startAgent({ token });
    const headers: Array<[string, string]> = [['Host', '127.0.0.1'], ['Content-Type', 'application/json']];
    for (const target of TARGETS) {
      const marker = `pwned-${TARGETS.indexOf(target)}`;
      const response = await sendRaw(agent.port, { method: 'POST', target, headers, body: JSON.stringify({ command: `touch ${marker}` }) });
      // 404 for what no route matches; 400 for what Node's HTTP parser refuses before any route (`exec`, `/ exec`).
      expect([404, 400], `${target} → ${response.status} ${response.body}`).toContain(response.status);
      expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(JSON.parse(response.body)).toEqual(response.status === 404 ? { error: 'not found', code: 'not_found' } : { error: 'malformed request', code: 'malformed_request' });
    }
    // The query string is not part of the path: `/exec?…` IS /exec, with its bearer check.
    const query = await sendRaw(agent.port, { method: 'POST', target: '/exec?debug=1', headers, body: JSON.stringify({ command: 'touch pwned-query' }) });
    expect(query.status).toBe(token === null ? 503 : 401);
    expect((await agent.call('GET', '/health')).status).toBe(200);
    const leftovers = [...TARGETS.map((_, i) => `pwned-${i}`), 'pwned-query'].filter((name) => existsSync(join(agent.workdir, name)));
    expect(leftovers).toEqual([]);
  });

  it('refuses what Node cannot parse, and oversized headers, with the JSON envelope', async () => {
    const agent = await startAgent();
    const huge = await sendRaw(agent.port, { method: 'GET', target: '/health', headers: [['Host', '127.0.0.1'], ['X-Filler', 'x'.repeat(20_000)]] });
    expect(huge.status).toBe(431);
    expect(JSON.parse(huge.body)).toEqual({ error: 'request headers too large', code: 'headers_too_large' });
    const garbage = await sendRaw(agent.port, { method: 'GET', target: '/health HTTP/9.9\r\nX: y', headers: [['Host', '127.0.0.1']] });
    expect(garbage.status).toBe(400);
    expect(JSON.parse(garbage.body)).toEqual({ error: 'malformed request', code: 'malformed_request' });
    expect((await agent.call('GET', '/health')).status).toBe(200);
  });

  it('any other method on /exec is 405 with Allow: POST, authorised or not, and runs nothing', async () => {
    const agent = await startAgent();
    for (const method of ['GET', 'HEAD', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'TRACE', 'PROPFIND']) {
      const response = await sendRaw(agent.port, {
        method, target: '/exec', headers: [['Host', '127.0.0.1'], ['Authorization', `Bearer ${TOKEN}`]], body: JSON.stringify({ command: `touch pwned-${method}` }),
      });
      expect(response.status, method).toBe(405);
      expect(response.headers.allow).toBe('POST');
    }
    expect((await agent.exec('ls pwned-* 2>/dev/null | wc -l')).stdout).toBe('0');
    // The positive control: the same bytes with POST and the bearer do run.
    const run = await sendRaw(agent.port, {
      method: 'POST', target: '/exec?x=1', headers: [['Host', '127.0.0.1'], ['Authorization', `Bearer ${TOKEN}`]], body: JSON.stringify({ command: 'echo ran' }),
    });
    expect(run.status).toBe(200);
    expect(JSON.parse(run.body)).toMatchObject({ stdout: 'ran', exit_code: 0 });
  });
});
