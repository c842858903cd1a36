import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { expect } from 'vitest';
import { cleanEnv, REPO_ROOT, SERVER_BIN } from './server-process.js';

/** An SDK client over streamable HTTP, with `X-Session-ID` (and more headers) on every request. */
export async function connectHttpClient(mcpUrl: string, sessionId?: string, headers: Record<string, string> = {}): Promise<Client> {
  const transport = new StreamableHTTPClientTransport(new URL(mcpUrl), {
    requestInit: { headers: { ...(sessionId === undefined ? {} : { 'X-Session-ID': sessionId }), ...headers } },
  });
  const client = new Client({ name: 'cli-mcp-e2e', version: '1.0.0' });
  await client.connect(transport);
  return client;
}

/** An SDK client over stdio to a freshly started built server with these arguments (its stderr is drained). */
export async function connectStdioClient(args: readonly string[], name = 'cli-mcp-e2e', onError?: (error: Error) => void): Promise<Client> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [SERVER_BIN, '--transport', 'stdio', ...args],
    env: cleanEnv(),
    cwd: REPO_ROOT,
    stderr: 'pipe',
  });
  (transport.stderr as NodeJS.ReadableStream | null)?.resume();
  const client = new Client({ name, version: '1' });
  if (onError) client.onerror = onError;
  await client.connect(transport);
  return client;
}

/** Runs `command` with the bash tool and returns the result (long client timeout for slow machines). */
export async function bash(client: Client, command: string, timeout?: number): Promise<CallToolResult> {
  const args: Record<string, unknown> = timeout === undefined ? { command } : { command, timeout };
  return (await client.callTool({ name: 'bash', arguments: args }, undefined, { timeout: 120_000 })) as CallToolResult;
}

export function textOf(result: CallToolResult): string {
  const [first] = result.content;
  return first?.type === 'text' ? first.text : '';
}

/** A call's structured result; an error result (it has none) fails with its text, not with a property of undefined. */
export function structuredOf(result: CallToolResult): { stdout: string; stderr: string; exit_code: number } & Record<string, unknown> {
  if (result.structuredContent === undefined) throw new Error(`the call answered without a structured result: ${textOf(result) || JSON.stringify(result)}`);
  return result.structuredContent as { stdout: string; stderr: string; exit_code: number } & Record<string, unknown>;
}

export { eventually } from '@cli-mcp/testing';

/** Two clients of servers that share nothing each write and read their own `/workspace` file; both are closed. */
export async function expectSeparateWorkspaces(one: Client, two: Client): Promise<void> {
  await bash(one, 'echo one > /workspace/who');
  await bash(two, 'echo two > /workspace/who');
  expect(structuredOf(await bash(one, 'cat /workspace/who')).stdout).toBe('one');
  expect(structuredOf(await bash(two, 'cat /workspace/who')).stdout).toBe('two');
  await Promise.all([one.close(), two.close()]);
}
