import { request } from 'node:http';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, describe, expect, it } from 'vitest';
import { bash, connectHttpClient, eventually, structuredOf } from './support/mcp-client.js';
import { processesMatching, useHttpServer } from './support/server-process.js';

/**
 * C-MCP-9: a `notifications/cancelled` and a dropped HTTP connection both stop the command in the sandbox (the
 * `sleep` process disappears from the host), and the session — shell state included — keeps working.
 */
describe('cancellation against the built server', () => {
  const clients: Client[] = [];

  const server = useHttpServer();
  afterAll(async () => {
    for (const client of clients) await client.close();
  });

  it('stops the command on notifications/cancelled (SDK callTool signal abort); the session stays usable', async () => {
    const client = await connectHttpClient(server().mcpUrl, 'cancel-notify');
    clients.push(client);
    await bash(client, 'export MARK=set-before');
    const marker = 'sleep 3171';
    const controller = new AbortController();
    const call = client.callTool({ name: 'bash', arguments: { command: marker } }, undefined, { signal: controller.signal, timeout: 120_000 });
    await eventually(() => processesMatching(marker).length > 0, 'the sleep to start');
    controller.abort('user pressed stop');
    await expect(call).rejects.toThrow();
    await eventually(() => processesMatching(marker).length === 0, 'the sleep to be killed');
    expect(structuredOf(await bash(client, 'echo "$MARK"')).stdout).toBe('set-before');
    expect(server().logs().some((line) => line.event === 'cancel' && line.where === 'local')).toBe(true);
  });

  it('stops the command when the HTTP connection drops; the session stays usable', async () => {
    const client = await connectHttpClient(server().mcpUrl, 'cancel-drop');
    clients.push(client);
    await bash(client, 'export MARK=still-here');
    const marker = 'sleep 3172';
    const url = new URL(server().mcpUrl);
    let status = 0;
    const req = request(
      {
        host: url.hostname,
        port: url.port,
        path: url.pathname,
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'x-session-id': 'cancel-drop' },
      },
      (response) => {
        status = response.statusCode ?? 0;
        response.resume();
      },
    );
    req.on('error', () => undefined); // we destroy it on purpose
    req.end(JSON.stringify({ jsonrpc: '2.0', id: 'drop-1', method: 'tools/call', params: { name: 'bash', arguments: { command: marker } } }));
    await eventually(() => processesMatching(marker).length > 0, 'the sleep to start');
    // The SSE headers of a call still running leave at most 50 ms after it started (docs/server.md).
    await eventually(() => status === 200, 'the SSE response headers');
    req.destroy();
    await eventually(() => processesMatching(marker).length === 0, 'the sleep to be killed');
    expect(structuredOf(await bash(client, 'echo "$MARK"')).stdout).toBe('still-here');
  });
});
