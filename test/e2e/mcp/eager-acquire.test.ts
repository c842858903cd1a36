import { Client as ClientV2, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, describe, expect, it } from 'vitest';
import { bash, connectHttpClient, eventually, structuredOf } from './support/mcp-client.js';
import { agentsOf, sessionDirs, useHttpServer, type ServerProcess } from './support/server-process.js';


const metricsOf = async (server: ServerProcess): Promise<string> => (await fetch(`${server.baseUrl}/metrics`)).text();

/** C-MCP-13 on the local backend: the sandbox is made while the model thinks, not when its first command comes. */
describe('eager acquisition (local backend)', () => {
  const clients: Client[] = [];
  const server = useHttpServer();
  afterAll(async () => {
    for (const client of clients) await client.close();
  });

  it('initialize with X-Session-ID starts the sandbox before any command; the first command finds it ready', async () => {
    const client = await connectHttpClient(server().mcpUrl, 'eager-local');
    clients.push(client);
    await eventually(async () => (await metricsOf(server())).includes('cli_mcp_sandbox_acquisitions_total{trigger="eager",result="ok"} 1'), 'the eager acquisition');
    expect(sessionDirs(server())).toEqual(['eager-local']);
    expect(agentsOf(server().stateDir).length).toBeGreaterThan(0); // the agent (and its bwrap parent, when isolated)
    expect(structuredOf(await bash(client, 'echo first')).stdout).toBe('first');
    const call = server().logs().find((line) => line.event === 'tool_call' && line.session_id === 'eager-local');
    expect(call?.acquire_path).toBe('cache');
    expect(await metricsOf(server())).not.toContain('trigger="call"');
  });

  it('a 2026-07-28 client (server/discover, no initialize) starts the sandbox the same way', async () => {
    const client = new ClientV2({ name: 'eager-v2', version: '1' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
    await client.connect(new StreamableHTTPClientTransport(new URL(server().mcpUrl), { requestInit: { headers: { 'X-Session-ID': 'eager-modern' } } }));
    await eventually(() => sessionDirs(server()).includes('eager-modern'), 'the eager acquisition of the 2026 session');
    expect((await client.callTool({ name: 'bash', arguments: { command: 'echo first' } })).structuredContent).toMatchObject({ stdout: 'first' });
    await client.close();
  });

  it('a client without X-Session-ID allocates nothing', async () => {
    const client = await connectHttpClient(server().mcpUrl);
    clients.push(client);
    await client.listTools();
    await client.ping();
    expect(sessionDirs(server()).sort()).toEqual(['eager-local', 'eager-modern']);
  });
});

describe('--eager-acquire=false', () => {
  const clients: Client[] = [];
  const server = useHttpServer({ args: ['--eager-acquire=false'] });
  afterAll(async () => {
    for (const client of clients) await client.close();
  });

  it('leaves the sandbox to the first command', async () => {
    const client = await connectHttpClient(server().mcpUrl, 'lazy-local');
    clients.push(client);
    await client.listTools();
    expect(sessionDirs(server())).toEqual([]);
    expect(structuredOf(await bash(client, 'echo first')).stdout).toBe('first');
    expect(await metricsOf(server())).toContain('cli_mcp_sandbox_acquisitions_total{trigger="call",result="ok"} 1');
  });
});
