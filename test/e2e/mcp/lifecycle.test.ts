import { isAlive, processRef } from '@cli-mcp/testing';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { bash, connectHttpClient, eventually, structuredOf, expectSeparateWorkspaces } from './support/mcp-client.js';
import { descendantsOf, processesMatching, startHttpServer, type ServerProcess } from './support/server-process.js';

const started: ServerProcess[] = [];
async function server(args: string[] = []): Promise<ServerProcess> {
  const instance = await startHttpServer({ args });
  started.push(instance);
  return instance;
}

afterEach(async () => {
  for (const instance of started.splice(0)) {
    await instance.stop('SIGKILL');
  }
});

describe('server lifecycle (C-HTTP-4)', () => {
  it('runs two instances that share nothing, each serving its own sessions', async () => {
    const [one, two] = await Promise.all([server(), server()]);
    const a = await connectHttpClient(one!.mcpUrl, 'same-id');
    const b = await connectHttpClient(two!.mcpUrl, 'same-id');
    await expectSeparateWorkspaces(a, b);
  });

  it('on SIGTERM lets a running command finish, then exits 0 with no sandbox process left', async () => {
    const instance = await server();
    const client = await connectHttpClient(instance.mcpUrl, 'drain-1');
    await bash(client, 'true');
    const marker = 'sleep 2.173';
    const call = bash(client, `${marker}; echo finished`);
    await eventually(() => processesMatching(marker).length > 0, 'the command to start');
    const sandboxes = descendantsOf(instance.pid).map(processRef);
    expect(sandboxes.length).toBeGreaterThan(0);
    const exit = instance.stop('SIGTERM');
    const result: CallToolResult = await call;
    expect(structuredOf(result)).toMatchObject({ stdout: 'finished', exit_code: 0 });
    expect(await exit).toBe(0);
    await eventually(() => sandboxes.every((pid) => !isAlive(pid)), 'every sandbox process to exit');
    expect(instance.logs().some((line) => line.msg === 'shutdown complete' && line.cancelled === 0)).toBe(true);
  });

  it('cancels what still runs when --shutdown-grace is over, and still exits 0 cleanly', async () => {
    const instance = await server(['--shutdown-grace', '1s']);
    const client = await connectHttpClient(instance.mcpUrl, 'drain-2');
    const marker = 'sleep 3173';
    const call = bash(client, marker).catch((error: unknown) => error);
    await eventually(() => processesMatching(marker).length > 0, 'the command to start');
    const sandboxes = descendantsOf(instance.pid).map(processRef);
    expect(await instance.stop('SIGTERM')).toBe(0);
    await call;
    await eventually(() => processesMatching(marker).length === 0 && sandboxes.every((pid) => !isAlive(pid)), 'every sandbox process to exit');
    expect(instance.logs().some((line) => line.msg === 'shutdown complete' && line.cancelled === 1)).toBe(true);
  });

  it('refuses new MCP requests while draining', async () => {
    const instance = await server(['--shutdown-grace', '30s']);
    const client = await connectHttpClient(instance.mcpUrl, 'drain-3');
    const marker = 'sleep 3.174';
    const call = bash(client, marker);
    await eventually(() => processesMatching(marker).length > 0, 'the command to start');
    instance.child.kill('SIGTERM');
    await eventually(() => instance.logs().some((line) => line.msg === 'received shutdown signal, draining'), 'the drain to begin');
    const refused = await fetch(instance.mcpUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', connection: 'close' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
    }).then(
      (response) => response.status,
      () => 'connection refused',
    );
    expect([503, 'connection refused']).toContain(refused);
    expect(structuredOf(await call).exit_code).toBe(0);
    expect(await instance.exited).toBe(0);
  });
});
