/**
 * Issue 22: a restart loses no workspace. The built server is stopped (kill -9, SIGTERM, a stdio client's
 * relaunch) while its sessions hold files, then started again on the same state dir: each session's files are
 * there, and its next result says truly that the shell state was lost and the files were kept.
 */
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { bash, connectHttpClient, connectStdioClient, structuredOf, textOf } from './support/mcp-client.js';
import { assertBuilt, removeDir, startHttpServer, tempDir, type ServerProcess } from './support/server-process.js';

const KEPT = "[the sandbox's shell was restarted: shell state from earlier commands (working directory, variables, functions, aliases, background jobs) is gone; files in /workspace were kept]";

/** Leaves a file and some shell state in the session. */
async function leaveState(client: Client, content: string): Promise<void> {
  expect(structuredOf(await bash(client, `echo ${content} > /workspace/f.txt && export V=set && cd /tmp`))).toMatchObject({ exit_code: 0 });
}

/** The first command after the restart: the file is there, the shell state is gone, and the notice says so. */
async function expectKept(client: Client, content: string): Promise<void> {
  const result = await bash(client, 'cat /workspace/f.txt; echo "V=[$V] $(pwd)"');
  expect(structuredOf(result)).toMatchObject({ stdout: `${content}\nV=[] /workspace`, exit_code: 0, sandbox_recreated: true });
  expect(textOf(result)).toContain(KEPT);
  // Only the first command after the restart carries the notice.
  expect(structuredOf(await bash(client, 'true'))).toMatchObject({ sandbox_recreated: false });
}

describe('workspaces survive a restart of the built server (issue 22)', () => {
  let dir: string;
  const servers: ServerProcess[] = [];
  beforeAll(() => {
    assertBuilt();
    dir = tempDir('restart');
  });
  afterEach(async () => {
    for (const server of servers.splice(0)) await server.stop('SIGKILL');
  });
  afterAll(() => removeDir(dir));

  const start = async (stateDir: string, args: string[] = []): Promise<ServerProcess> => {
    const server = await startHttpServer({ stateDir, args });
    servers.push(server);
    return server;
  };

  for (const signal of ['SIGKILL', 'SIGTERM'] as const) {
    it(`after ${signal}, every session finds its files and a true notice`, async () => {
      const stateDir = join(dir, signal);
      const first = await start(stateDir);
      for (const id of ['keep-a', 'keep-b']) await leaveState(await connectHttpClient(first.mcpUrl, id), `${id}-${signal}`);
      await first.stop(signal);
      const second = await start(stateDir);
      for (const id of ['keep-a', 'keep-b']) await expectKept(await connectHttpClient(second.mcpUrl, id), `${id}-${signal}`);
      expect(second.logs().some((line) => typeof line.msg === 'string' && line.msg.startsWith('kept the workspaces') && line.sessions === 2)).toBe(true);
    });
  }

  it('with --local-reset-state, the files of the earlier run are gone', async () => {
    const stateDir = join(dir, 'reset');
    const first = await start(stateDir);
    await leaveState(await connectHttpClient(first.mcpUrl, 'reset-a'), 'old');
    await first.stop('SIGTERM');
    const second = await start(stateDir, ['--local-reset-state']);
    const result = await bash(await connectHttpClient(second.mcpUrl, 'reset-a'), 'cat /workspace/f.txt');
    expect(structuredOf(result)).toMatchObject({ exit_code: 1, sandbox_recreated: false });
  });

  it('a stdio client relaunching the server with the same --session-id finds its files', async () => {
    const args = ['--session-id', 'my-project', '--state-dir', join(dir, 'stdio')];
    const first = await connectStdioClient(args);
    await leaveState(first, 'stdio-files');
    await first.close();
    const second = await connectStdioClient(args);
    await expectKept(second, 'stdio-files');
    await second.close();
  });
});
