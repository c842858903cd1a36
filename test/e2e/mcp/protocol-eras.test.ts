import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterAll, describe, expect, it } from 'vitest';
import { eventually } from './support/mcp-client.js';
import { cleanEnv, processesMatching, REPO_ROOT, removeDir, SERVER_BIN, tempDir, useHttpServer } from './support/server-process.js';

type Mode = 'legacy' | 'auto' | { pin: '2026-07-28' };

/** Aborting a running `sleep <seconds>` call (client signal) kills the sleep in the sandbox. */
async function expectAbortStopsSleep(client: Client, seconds: number): Promise<void> {
  const marker = `sleep ${seconds}`;
  const controller = new AbortController();
  const running = client.callTool({ name: 'bash', arguments: { command: marker } }, { signal: controller.signal, timeout: 120_000 });
  await eventually(() => processesMatching(marker).length > 0, 'the sleep to start');
  controller.abort('user pressed stop');
  await expect(running).rejects.toThrow();
  await eventually(() => processesMatching(marker).length === 0, 'the sleep to be killed');
}

/**
 * C-MCP-12: one `/mcp` serves MCP 2026-07-28 (through the SDK v2 handler) and the 2025 revisions. The SDK v2 client
 * in each of its negotiation modes lists tools, runs `bash`, receives progress and cancels a running command.
 */
describe('protocol eras on /mcp: SDK v2 client', () => {
  const clients: Client[] = [];
  const server = useHttpServer({ args: ['--progress-interval', '200ms'] });
  afterAll(async () => {
    for (const client of clients) await client.close();
  });

  async function connect(mode: Mode, sessionId: string): Promise<Client> {
    const client = new Client({ name: 'cli-mcp-e2e-v2', version: '1.0.0' }, { versionNegotiation: { mode } });
    await client.connect(new StreamableHTTPClientTransport(new URL(server().mcpUrl), { requestInit: { headers: { 'X-Session-ID': sessionId } } }));
    clients.push(client);
    return client;
  }

  it.each([
    ['pinned to 2026-07-28', { pin: '2026-07-28' } as Mode, 'modern', 'era-pin', 3311],
    ['auto', 'auto' as Mode, 'modern', 'era-auto', 3312],
    ['legacy (2025)', 'legacy' as Mode, 'legacy', 'era-legacy', 3313],
  ])('%s: lists tools, runs bash with progress, cancels', async (_name, mode, era, sessionId, sleepSeconds) => {
    const client = await connect(mode, sessionId);
    expect(client.getProtocolEra()).toBe(era);
    expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(['bash']);

    const progress: string[] = [];
    const result = await client.callTool({ name: 'bash', arguments: { command: 'echo step-one; sleep 0.7; echo done' } }, {
      timeout: 60_000,
      onprogress: (update) => void progress.push(update.message ?? ''),
    });
    // The message names the result when it is not the command's (an error result has text only).
    expect(result.structuredContent, JSON.stringify(result.content)).toMatchObject({ stdout: 'step-one\ndone', exit_code: 0 });
    expect(progress.some((message) => message.includes('stdout: step-one'))).toBe(true);

    // The contract's exact strings (C-MCP-4), whatever the era.
    expect(await client.callTool({ name: 'bash', arguments: { command: '' } })).toMatchObject({
      content: [{ type: 'text', text: 'command is required' }],
      isError: true,
    });
    await expect(client.callTool({ name: 'python', arguments: {} })).rejects.toThrow('unknown tool "python"');

    await expectAbortStopsSleep(client, sleepSeconds);
    expect((await client.callTool({ name: 'bash', arguments: { command: 'echo after' } })).structuredContent).toMatchObject({ stdout: 'after' });
  });

  it('counts the calls of both eras in mcp_calls_total (Go §11)', async () => {
    const client = await connect({ pin: '2026-07-28' }, 'era-metrics');
    await client.callTool({ name: 'bash', arguments: { command: 'true' } });
    const metrics = await (await fetch(`${server().baseUrl}/metrics`)).text();
    // Two successful bash calls in each era test above (the others are tool errors or cancelled), plus this one:
    // 5 of the 7 went through the SDK v2 handler (2026-07-28), 2 through our 2025 transport.
    expect(metrics).toContain('mcp_calls_total{server="cli-mcp-server",method="tools/call",name="bash",success="true"} 7');
  });

  it('counts server/discover of 2026-07-28 too, which the SDK answers itself (the era has no ping)', async () => {
    const count = async (method: string): Promise<number> => {
      const text = await (await fetch(`${server().baseUrl}/metrics`)).text();
      const line = text.split('\n').find((l) => l.startsWith(`mcp_calls_total{server="cli-mcp-server",method="${method}",name="",success="true"} `));
      return line ? Number(line.split(' ').at(-1)) : 0;
    };
    const discovers = await count('server/discover');
    const client = await connect({ pin: '2026-07-28' }, 'era-discover');
    await expect(client.ping()).rejects.toThrow(/not supported by the negotiated protocol version/);
    expect(await count('server/discover')).toBe(discovers + 1);
  });
});

describe('protocol eras on stdio: SDK v2 client', () => {
  const dir = tempDir('eras-stdio');
  afterAll(() => removeDir(dir));

  it.each([
    ['pinned to 2026-07-28', { pin: '2026-07-28' } as Mode, 'modern', 'stdio-pin', 3321],
    ['legacy (2025)', 'legacy' as Mode, 'legacy', 'stdio-legacy', 3322],
  ])('%s: lists tools, runs bash, cancels with notifications/cancelled', async (_name, mode, era, sessionId, sleepSeconds) => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [SERVER_BIN, '--transport', 'stdio', '--session-id', sessionId, '--state-dir', join(dir, sessionId)],
      env: cleanEnv(),
      cwd: REPO_ROOT,
      stderr: 'ignore',
    });
    const client = new Client({ name: 'cli-mcp-e2e-v2', version: '1.0.0' }, { versionNegotiation: { mode } });
    await client.connect(transport);
    try {
      expect(client.getProtocolEra()).toBe(era);
      expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(['bash']);
      const first = await client.callTool({ name: 'bash', arguments: { command: 'cd /tmp && pwd' } });
      // The message names the result when it is not the command's (an error result has text only).
      expect(first.structuredContent, JSON.stringify(first.content)).toMatchObject({ stdout: '/tmp' });
      await expectAbortStopsSleep(client, sleepSeconds);
      expect((await client.callTool({ name: 'bash', arguments: { command: 'pwd' } })).structuredContent).toMatchObject({ stdout: '/tmp' });
    } finally {
      await client.close();
    }
  });
});
