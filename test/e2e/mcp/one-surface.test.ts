import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client as ClientV2, StreamableHTTPClientTransport as HttpTransportV2 } from '@modelcontextprotocol/client';
import { StdioClientTransport as StdioTransportV2 } from '@modelcontextprotocol/client/stdio';
import { afterAll, describe, expect, it } from 'vitest';
import { connectHttpClient, connectStdioClient } from './support/mcp-client.js';
import { cleanEnv, REPO_ROOT, removeDir, SERVER_BIN, tempDir, useHttpServer } from './support/server-process.js';

/** What a client is told: the server's instructions and every tool definition, whole. */
interface Served {
  readonly instructions: string | undefined;
  readonly tools: readonly unknown[];
}

/** The JSON-RPC error a client got for a call, as code and message (clients prefix `MCP error <code>: `). */
interface CallError {
  readonly code: unknown;
  readonly message: string;
}

interface AnyClient {
  listTools(): Promise<{ tools: unknown[] }>;
  callTool(params: { name: string; arguments: Record<string, unknown> }): Promise<unknown>;
  getInstructions(): string | undefined;
  close(): Promise<void>;
}

async function servedBy(client: AnyClient): Promise<Served> {
  return { instructions: client.getInstructions(), tools: (await client.listTools()).tools };
}

async function unknownToolError(client: AnyClient): Promise<CallError> {
  const error = await client.callTool({ name: 'python', arguments: { command: 'true' } }).then(
    () => undefined,
    (caught: unknown) => caught as { code?: unknown; message?: string },
  );
  expect(error, 'calling an unknown tool must fail as a JSON-RPC error').toBeDefined();
  return { code: error?.code, message: String(error?.message).replace(/^MCP error -?\d+: /, '') };
}

/**
 * Issue 19 item 2: HTTP 2025, HTTP 2026-07-28 and stdio (either era) serve one surface. Every setting that shapes
 * the tool — here a non-default yield, timeouts and instructions — reaches every path, and an unknown tool gets
 * the same protocol error (-32602 naming the tool, C-MCP-4) on each.
 */
describe('one MCP surface on every path', () => {
  const dir = tempDir('one-surface');
  const instructionsFile = join(dir, 'instructions.md');
  writeFileSync(instructionsFile, 'Use the tools of this image.\n');
  const settings = ['--yield-after', '7s', '--default-timeout', '45s', '--max-timeout', '90s', '--instructions-file', instructionsFile];
  const server = useHttpServer({ args: settings });
  const clients: AnyClient[] = [];
  afterAll(async () => {
    for (const client of clients) await client.close().catch(() => undefined);
    removeDir(dir);
  });

  async function paths(): Promise<Record<string, AnyClient>> {
    const modernHttp = new ClientV2({ name: 'one-surface', version: '1' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
    await modernHttp.connect(new HttpTransportV2(new URL(server().mcpUrl), { requestInit: { headers: { 'X-Session-ID': 'surface-http' } } }));
    const modernStdio = new ClientV2({ name: 'one-surface', version: '1' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
    await modernStdio.connect(
      new StdioTransportV2({
        command: process.execPath,
        args: [SERVER_BIN, '--transport', 'stdio', '--session-id', 'surface-stdio-v2', '--state-dir', join(dir, 'stdio-v2'), ...settings],
        env: cleanEnv(),
        cwd: REPO_ROOT,
        stderr: 'ignore',
      }),
    );
    const found: Record<string, AnyClient> = {
      'HTTP 2025 (SDK v1 client)': await connectHttpClient(server().mcpUrl, 'surface-http'),
      'HTTP 2026-07-28 (SDK v2 client)': modernHttp,
      'stdio 2025 (SDK v1 client)': await connectStdioClient(['--session-id', 'surface-stdio', '--state-dir', join(dir, 'stdio'), ...settings]),
      'stdio 2026-07-28 (SDK v2 client)': modernStdio,
    };
    clients.push(...Object.values(found));
    return found;
  }

  it('lists the same whole tool definitions and instructions, with every setting, and refuses an unknown tool alike', async () => {
    const all = await paths();
    const served: Record<string, Served> = {};
    const errors: Record<string, CallError> = {};
    for (const [path, client] of Object.entries(all)) {
      served[path] = await servedBy(client);
      errors[path] = await unknownToolError(client);
    }
    const reference = served['HTTP 2025 (SDK v1 client)']!;
    // The settings are in what the model reads, whichever path it came by.
    const [bash] = reference.tools as Array<{ name: string; description: string }>;
    expect(bash?.name).toBe('bash');
    expect(bash?.description).toContain('after 7 s becomes a background job');
    expect(bash?.description).toContain('time out after 45 s');
    expect(reference.instructions).toContain('Use the tools of this image.');
    for (const path of Object.keys(all)) {
      expect(served[path], path).toEqual(reference);
      expect(errors[path], path).toEqual({ code: -32602, message: 'unknown tool "python"' });
    }
  });
});
