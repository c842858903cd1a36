import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, describe, expect, it } from 'vitest';
import { connectHttpClient, structuredOf } from './support/mcp-client.js';
import { useHttpServer } from './support/server-process.js';

/** A program that refuses to run without a terminal on stdin and stdout, as `top`, `ssh -t` or `sudo` prompts do. */
const NEEDS_TERMINAL = "sh -c 'test -t 0 && test -t 1 || { echo \"not a terminal\" >&2; exit 3; }; echo has-a-terminal'";

/** C-MCP-14: the `bash` tool's `tty` reaches the agent's terminal mode (C-AG-11) through the built server. */
describe('terminal mode through the built server', () => {
  const clients: Client[] = [];
  const server = useHttpServer();
  afterAll(async () => {
    for (const client of clients) await client.close();
  });

  const call = async (client: Client, args: Record<string, unknown>) =>
    (await client.callTool({ name: 'bash', arguments: args }, undefined, { timeout: 120_000 })) as CallToolResult;

  it('runs a program that refuses to run without a terminal only with tty: true', async () => {
    const client = await connectHttpClient(server().mcpUrl, 'tty-session');
    clients.push(client);
    const refused = await call(client, { command: NEEDS_TERMINAL });
    expect(refused.isError).toBe(true);
    expect(structuredOf(refused)).toMatchObject({ exit_code: 3, stderr: 'not a terminal' });
    const ran = await call(client, { command: `${NEEDS_TERMINAL} && tty`, tty: true });
    expect(ran.isError).toBeFalsy();
    expect(structuredOf(ran).stdout).toMatch(/^has-a-terminal\n\/dev\/pts\/\d+$/);
    // tty: false is the pipe protocol again: streams apart, no terminal.
    expect(structuredOf(await call(client, { command: 'echo out; echo err >&2', tty: false }))).toMatchObject({ stdout: 'out', stderr: 'err' });
  });
});
