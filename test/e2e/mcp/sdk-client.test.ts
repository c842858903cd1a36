import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ErrorCode, McpError, type Progress } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, describe, expect, it } from 'vitest';
import { bash, connectHttpClient, structuredOf, textOf } from './support/mcp-client.js';
import { useHttpServer } from './support/server-process.js';

async function rpcError(promise: Promise<unknown>): Promise<McpError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  if (!(error instanceof McpError)) throw new Error(`expected a JSON-RPC error, got ${String(error)}`);
  return error;
}

describe('SDK Client over streamable HTTP against the built server', () => {
  const clients: Client[] = [];
  const client = async (sessionId?: string): Promise<Client> => {
    const connected = await connectHttpClient(server().mcpUrl, sessionId);
    clients.push(connected);
    return connected;
  };

  const server = useHttpServer();
  afterAll(async () => {
    for (const connected of clients) await connected.close();
  });

  it('keeps cwd, env and files across calls of one session (C-AG-5)', async () => {
    const c = await client('persist-1');
    expect(structuredOf(await bash(c, 'pwd')).stdout).toBe('/workspace');
    await bash(c, 'mkdir -p /workspace/sub && cd /workspace/sub && export GREETING=hello && echo data > file.txt');
    const result = await bash(c, 'pwd; echo $GREETING; cat file.txt');
    expect(structuredOf(result).stdout).toBe('/workspace/sub\nhello\ndata');
    expect(textOf(result)).toBe(`/workspace/sub\nhello\ndata\n[exit 0 · ${String(structuredOf(result).duration_ms)} ms]`);
  });

  it('runs the command of a new client of the same session even though its JSON-RPC ids restart (no stale result)', async () => {
    // TARSy reconnects with a fresh MCP client after a transport error: ids start again at 0, 1 … (field-anchors §1.1).
    const first = await connectHttpClient(server().mcpUrl, 'reconnect-1');
    expect(structuredOf(await bash(first, 'echo first')).stdout).toBe('first');
    await first.close();
    const second = await client('reconnect-1');
    expect(structuredOf(await bash(second, 'echo second')).stdout).toBe('second');
  });

  it('isolates two sessions from each other', async () => {
    const a = await client('iso-a');
    const b = await client('iso-b');
    await bash(a, 'export ONLY_A=1; echo a > /workspace/mine');
    const seenByB = structuredOf(await bash(b, 'echo "${ONLY_A:-unset}"; ls /workspace/mine 2>&1 || true'));
    expect(seenByB.stdout).toMatch(/^unset\n.*No such file/s);
  });

  it('returns non-zero exits as isError with the output, and stderr in its own section', async () => {
    const result = await bash(await client('exit-1'), 'echo out; echo err >&2; exit 3');
    expect(result.isError).toBe(true);
    expect(structuredOf(result)).toMatchObject({ stdout: 'out', stderr: 'err', exit_code: 3 });
    expect(textOf(result)).toMatch(/^out\n--- stderr ---\nerr\n\[exit 3 · \d+ ms\]$/);
  });

  it('reports a timeout with the effective timeout and keeps the session usable', async () => {
    const c = await client('timeout-1');
    const result = await bash(c, 'echo partial_line; sleep 30', 1);
    expect(result.isError).toBe(true);
    expect(structuredOf(result)).toMatchObject({ exit_code: 137, timed_out: true });
    expect(textOf(result)).toContain('[command timed out after 1 s]');
    expect(structuredOf(await bash(c, 'echo after')).stdout).toBe('after');
  });

  it('DELETE /sessions/{id} ends the session: the next call starts a fresh sandbox', async () => {
    const c = await client('ended-1');
    await bash(c, 'echo keep > /workspace/marker; export KEEP=1');
    expect((await fetch(`${server().baseUrl}/sessions/ended-1`, { method: 'DELETE' })).status).toBe(204);
    const after = structuredOf(await bash(c, 'echo "${KEEP:-unset}"; cat /workspace/marker 2>&1 || true'));
    expect(after.stdout).toMatch(/^unset\n.*No such file/s);
  });

  it('answers wrong argument types with a JSON-RPC error (not a tool result)', async () => {
    const error = await rpcError((await client('types-1')).callTool({ name: 'bash', arguments: { command: 42 } }));
    expect(error.code).toBe(ErrorCode.InvalidParams);
    expect(error.message).toContain('argument "command" must be a string');
  });

  it('answers an unknown tool with a JSON-RPC error', async () => {
    const error = await rpcError((await client('types-1')).callTool({ name: 'python', arguments: { code: '1' } }));
    expect(error.code).toBe(ErrorCode.InvalidParams);
    expect(error.message).toContain('unknown tool "python"');
  });

  it('answers a command over 1 MiB with a tool error naming the sizes', async () => {
    const result = await bash(await client('big-1'), `echo ${'x'.repeat(1024 * 1024)}`);
    expect(result.isError).toBe(true);
    expect(textOf(result)).toBe('command is too large (1048581 bytes; the limit is 1048576)');
  });

  it('answers an invalid session id with a tool error containing "invalid session ID"', async () => {
    const result = await bash(await client('Not_A_Label'), 'pwd');
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain('invalid session ID');
  });

  it('answers bash without X-Session-ID with "missing X-Session-ID header"', async () => {
    const result = await bash(await client(), 'pwd');
    expect(result).toMatchObject({ isError: true, content: [{ type: 'text', text: 'missing X-Session-ID header' }] });
  });

  it('sends progress notifications for a 6 s command when a progressToken is sent (C-MCP-10)', async () => {
    const c = await client('progress-1');
    const seen: Progress[] = [];
    const command = 'echo "fetching logs"; sleep 6; echo done';
    const result = await c.callTool({ name: 'bash', arguments: { command } }, undefined, {
      onprogress: (progress) => seen.push(progress),
      resetTimeoutOnProgress: true,
      timeout: 120_000,
    });
    expect(structuredOf(result as never).stdout).toBe('fetching logs\ndone');
    expect(seen.length).toBeGreaterThanOrEqual(1);
    // The message quotes the latest output the command printed so far ("recent output lines when available").
    expect(seen[0]?.message).toMatch(/^running for \d+ s; stdout: fetching logs$/);
    expect(seen.map((progress) => progress.progress)).toEqual([...seen.map((progress) => progress.progress)].sort((x, y) => x - y));
  });
});
