// SDK MCP clients for whole-call benchmarks: what most hosts' client libraries do per call (TARSy's is go-sdk's).
import { closeSync, mkdtempSync, openSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Client as ClientV2, StreamableHTTPClientTransport as StreamableHTTPClientTransportV2 } from '@modelcontextprotocol/client';

export const SERVER_BIN = new URL('../../bin/cli-mcp-server.js', import.meta.url).pathname;

/** The bench's environment without the server's own variables (flags decide). */
export function serverEnv() {
  return Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith('CLI_MCP_')));
}

/**
 * Spawns `command args` as a stdio MCP server, connects an SDK client; `call()` runs `tool` with `arguments`,
 * rejecting on a tool error, `close()` ends the process.
 */
export async function stdioContestant({ args, tool, toolArguments, cleanup }) {
  // The server's stderr (its log) goes to a file, not through this process, which is also the measuring client.
  const logDir = mkdtempSync(join(tmpdir(), 'stdio-bench-log-'));
  const log = openSync(join(logDir, 'stderr.log'), 'w');
  const transport = new StdioClientTransport({ command: process.execPath, args, env: serverEnv(), stderr: log });
  const client = new Client({ name: 'cli-mcp-bench', version: '1' });
  try {
    await client.connect(transport);
  } finally {
    closeSync(log);
  }
  return {
    call: () => checked(client.callTool({ name: tool, arguments: toolArguments })),
    close: async () => {
      await client.close();
      cleanup?.();
      rmSync(logDir, { recursive: true, force: true });
    },
  };
}

/** Our server over stdio with the local backend, in a throw-away state dir. */
export function ourStdioServer(extraArgs, sessionId) {
  const dir = mkdtempSync(join(tmpdir(), 'peer-bench-'));
  return stdioContestant({
    args: [SERVER_BIN, '--transport', 'stdio', '--session-id', sessionId, '--state-dir', join(dir, 'state'), ...extraArgs],
    tool: 'bash',
    toolArguments: { command: 'true' },
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  });
}

/** An SDK client on a running server's `/mcp` with `X-Session-ID`. */
export async function httpContestant(mcpUrl, sessionId) {
  const client = new Client({ name: 'cli-mcp-bench', version: '1' });
  await client.connect(new StreamableHTTPClientTransport(new URL(mcpUrl), { requestInit: { headers: { 'X-Session-ID': sessionId } } }));
  return bashTrueCaller(client);
}

/**
 * The SDK v2 client on `/mcp` with `X-Session-ID`, in one protocol era: `'legacy'` (2025, our transport) or
 * `'modern'` (pinned to 2026-07-28, the SDK v2 handler); throws when the server settled on another era.
 */
export async function httpContestantV2(mcpUrl, sessionId, era) {
  const mode = era === 'modern' ? { pin: '2026-07-28' } : 'legacy';
  const client = new ClientV2({ name: 'cli-mcp-bench', version: '1' }, { versionNegotiation: { mode } });
  await client.connect(new StreamableHTTPClientTransportV2(new URL(mcpUrl), { requestInit: { headers: { 'X-Session-ID': sessionId } } }));
  if (client.getProtocolEra() !== era) throw new Error(`SDK v2 client: expected the ${era} era, got ${client.getProtocolEra()}`);
  return bashTrueCaller(client);
}

/** `call()` runs `bash true` on a connected client (either SDK generation), rejecting on a tool error. */
function bashTrueCaller(client) {
  return {
    call: () => checked(client.callTool({ name: 'bash', arguments: { command: 'true' } })),
    close: () => client.close(),
  };
}

async function checked(pending) {
  const result = await pending;
  if (result.isError) throw new Error(`tool call failed: ${JSON.stringify(result.content).slice(0, 300)}`);
  return result;
}
