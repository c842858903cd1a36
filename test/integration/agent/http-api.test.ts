import { afterAll, describe, expect, it } from 'vitest';
import { startAgent, stopAllAgents, TOKEN, type HttpResult } from './agent-harness.js';

const BIG = JSON.stringify({ command: 'x'.repeat(1024 * 1024 + 10) });

/** An error answer of the agent wire (C-AG-15): the status, the stable code, the human text — and nothing else. */
function expectError(r: HttpResult, status: number, code: string, error: string): void {
  expect(r.status).toBe(status);
  expect(r.headers['content-type']).toMatch(/^application\/json/);
  expect(r.json).toEqual({ code, error });
  expect(r.text).not.toMatch(/at .*\.js|stack|statusCode/);
}

// C-AG-1 (check order), C-AG-2 (/assign), C-AG-3 (/health), C-AG-10 (token from env), no stack traces anywhere.
describe('sandbox-agent: HTTP API', () => {
  afterAll(stopAllAgents);

  it('checks in order: 503 unassigned, 401 header, 401 token, 413 size, 400 body, 400 command', async () => {
    const unassigned = await startAgent({ token: null });
    expectError(await unassigned.execRaw(BIG), 503, 'not_assigned', 'agent not assigned');
    expectError(await unassigned.call('POST', '/exec', 'not json'), 503, 'not_assigned', 'agent not assigned');
    expectError(await unassigned.call('POST', '/cancel', {}), 503, 'not_assigned', 'agent not assigned');

    const agent = await startAgent();
    expectError(await agent.call('POST', '/exec', BIG), 401, 'missing_authorization', 'missing or invalid authorization header');
    expectError(await agent.call('POST', '/exec', BIG, { authorization: `Basic ${TOKEN}` }), 401, 'missing_authorization', 'missing or invalid authorization header');
    expectError(await agent.call('POST', '/exec', BIG, { authorization: `bearer ${TOKEN}` }), 401, 'missing_authorization', 'missing or invalid authorization header');
    expectError(await agent.execRaw(BIG, 'wrong-token'), 401, 'unauthorized', 'unauthorized');
    expectError(await agent.execRaw({ command: 'echo x' }, `${TOKEN}x`), 401, 'unauthorized', 'unauthorized');
    expectError(await agent.execRaw(BIG), 413, 'body_too_large', 'request body too large');
    expectError(await agent.execRaw('not json'), 400, 'invalid_body', 'invalid request body');
    expectError(await agent.execRaw('{"command":"echo"} {"x":1}'), 400, 'invalid_body', 'invalid request body');
    expectError(await agent.execRaw({ command: 7 }), 400, 'invalid_body', 'invalid request body');
    expectError(await agent.execRaw({ command: 'ls', timeout: 'soon' }), 400, 'invalid_body', 'invalid request body');
    expectError(await agent.execRaw(''), 400, 'invalid_body', 'invalid request body');
    expectError(await agent.execRaw({ command: '' }), 400, 'command_required', 'command is required');
    expectError(await agent.execRaw({}), 400, 'command_required', 'command is required');
    expectError(await agent.execRaw({ command: 'a\u0000b' }), 400, 'command_has_nul', 'command must not contain NUL bytes');
    expectError(await agent.call('POST', '/cancel', { request_id: 5 }, { authorization: `Bearer ${TOKEN}` }), 400, 'invalid_body', 'invalid request body');
    expectError(await agent.call('POST', '/cancel', {}, { authorization: 'Bearer nope' }), 401, 'unauthorized', 'unauthorized');
  });

  it('accepts any content type (as the Go agent did) and a 1 MiB command below the limit', async () => {
    const agent = await startAgent();
    const plain = await agent.send('POST', '/exec', { body: JSON.stringify({ command: 'echo plain' }),
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'text/plain' } }).response;
    expect(plain.json.stdout).toBe('plain');
    const none = await agent.send('POST', '/exec', { body: JSON.stringify({ command: 'echo none' }),
      headers: { authorization: `Bearer ${TOKEN}` } }).response;
    expect(none.json.stdout).toBe('none');
    const long = `: ${'x'.repeat(1000 * 1000)}; echo long`;
    expect((await agent.exec(long, { timeout: 60 })).stdout).toBe('long');
  });

  it('/assign: once → 200 {}, the same token again → 200 (C-AG-13), another → 409 with the token unchanged, bad bodies → 400', async () => {
    const agent = await startAgent({ token: null });
    expectError(await agent.call('POST', '/assign', 'nope'), 400, 'invalid_body', 'invalid request body');
    expectError(await agent.call('POST', '/assign', BIG), 413, 'body_too_large', 'request body too large');
    expectError(await agent.call('POST', '/assign', { token: '' }), 400, 'token_required', 'token is required');
    expectError(await agent.call('POST', '/assign', { token: 3 }), 400, 'invalid_body', 'invalid request body');
    expect((await agent.call('GET', '/health')).json).toEqual({ status: 'ok', assigned: false, busy: false, nonDumpable: true });
    const ok = await agent.call('POST', '/assign', { token: 'warm-pool-token' });
    expect(ok.status).toBe(200);
    expect(ok.json).toEqual({});
    const again = await agent.call('POST', '/assign', { token: 'warm-pool-token' });
    expect(again.status).toBe(200);
    expect(again.json).toEqual({});
    expectError(await agent.call('POST', '/assign', { token: 'second' }), 409, 'already_assigned', 'already assigned');
    expectError(await agent.call('POST', '/assign', { token: 'warm-pool-token-2' }), 409, 'already_assigned', 'already assigned');
    expectError(await agent.call('POST', '/assign', 'nope'), 400, 'invalid_body', 'invalid request body');
    expect((await agent.call('GET', '/health')).json).toEqual({ status: 'ok', assigned: true, busy: false, nonDumpable: true });
    expect((await agent.exec('echo from_warm_pool').catch(() => undefined))).toBeUndefined();
    const r = await agent.execRaw({ command: 'echo from_warm_pool' }, 'warm-pool-token');
    expect(r.json.stdout).toBe('from_warm_pool');
    expectError(await agent.execRaw({ command: 'echo x' }, 'second'), 401, 'unauthorized', 'unauthorized');
  });

  it('a token from SANDBOX_AUTH_TOKEN starts assigned; /assign then answers 409', async () => {
    const agent = await startAgent({ token: 'env-token' });
    expect((await agent.call('GET', '/health')).json.assigned).toBe(true);
    expect((await agent.execRaw({ command: 'echo env' }, 'env-token')).json.stdout).toBe('env');
    expectError(await agent.call('POST', '/assign', { token: 'other' }), 409, 'already_assigned', 'already assigned');
    expect((await agent.call('POST', '/assign', { token: 'env-token' })).status).toBe(200);
  });

  it('hides every SANDBOX_* variable from the shell, and never logs the token or the command', async () => {
    const agent = await startAgent({ env: { SANDBOX_EXTRA_SECRET: 'hidden-value' } });
    const r = await agent.exec('env | grep SANDBOX_ || echo none; echo $SANDBOX_AUTH_TOKEN');
    expect(r.stdout).toBe('none');
    await agent.exec('echo secret-command-text');
    const logs = JSON.stringify(agent.logs);
    expect(logs).not.toContain(TOKEN);
    expect(logs).not.toContain('secret-command-text');
  });

  it('answers /health (GET and HEAD), 404 for unknown routes and 405 for wrong methods, all as JSON', async () => {
    const agent = await startAgent();
    const health = await agent.call('GET', '/health');
    expect(health.status).toBe(200);
    expect(health.json).toEqual({ status: 'ok', assigned: true, busy: false, nonDumpable: true });
    const head = await agent.call('HEAD', '/health');
    expect(head.status).toBe(200);
    expect(head.text).toBe('');
    expectError(await agent.call('GET', '/nope'), 404, 'not_found', 'not found');
    expectError(await agent.call('POST', '/health'), 405, 'method_not_allowed', 'method not allowed');
    const wrong = await agent.call('GET', '/exec');
    expectError(wrong, 405, 'method_not_allowed', 'method not allowed');
    expect(wrong.headers.allow).toBe('POST');
  });

  it('health is 503 with a reason only when no shell can be started; exec then fails with 500', async () => {
    const agent = await startAgent({ env: { SANDBOX_SHELL: '/nonexistent/bash' } });
    const health = await agent.call('GET', '/health');
    expect(health.status).toBe(503);
    expect(health.json.status).toBe('unhealthy');
    expect(health.json.error).toContain('cannot start shell');
    const r = await agent.execRaw({ command: 'echo x' });
    expect(r.status).toBe(500);
    expect(r.json.error).toContain('cannot start shell');
  });
});
