/**
 * `/exec` lasts as long as its command, up to the agent's max timeout (hours): no client-side timeout but the
 * caller's signal. undici's 300 s headers/body timeouts would cut it, so they are off; fake timers run the clock
 * past them while a real agent stand-in holds the request. (Its own file: undici arms its shared timer lazily, and
 * it must be armed under this file's fake clock.)
 */
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { AgentClient } from './agent-client.js';
import type { ExecResponse } from './wire.js';
import { stopServer } from '../test/stop-server.js';

const okExec: ExecResponse = {
  stdout: 'done', stderr: '', exit_code: 0, duration_ms: 900_000, timed_out: false, cancelled: false,
  truncated: false, state_reset: false, stdout_bytes: 4, stderr_bytes: 0,
};
const FIFTEEN_MINUTES_MS = 15 * 60_000;

// One fake clock for the whole file: undici arms its shared timer once, under whichever clock is installed then.
beforeAll(() => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'Date'] });
});
afterAll(() => {
  vi.useRealTimers();
});

describe('AgentClient /exec without a timeout', () => {
  it.each([
    ['the response headers', false],
    ['the rest of the body after its first bytes', true],
  ])('waits 15 minutes for %s', async (_what, headersFirst) => {
    let held!: (res: ServerResponse) => void;
    const holding = new Promise<ServerResponse>((resolve) => (held = resolve));
    const server = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        if (headersFirst) res.writeHead(200, { 'content-type': 'application/json' }).write(' ');
        held(res);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const client = new AgentClient();
    const pending = client.exec(`http://127.0.0.1:${(server.address() as AddressInfo).port}`, 't', { command: 'sleep 900' });
    const res = await holding;
    await vi.advanceTimersByTimeAsync(FIFTEEN_MINUTES_MS);
    if (headersFirst) res.end(JSON.stringify(okExec));
    else res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(okExec));
    await expect(pending).resolves.toMatchObject({ stdout: 'done' });
    client.close();
    await stopServer(server);
  });
});
