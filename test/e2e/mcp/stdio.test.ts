import { spawn } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { isAlive, processRef } from '@cli-mcp/testing';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bash, connectStdioClient, eventually, structuredOf, textOf, expectSeparateWorkspaces } from './support/mcp-client.js';
import { assertBuilt, cleanEnv, descendantsOf, REPO_ROOT, removeDir, SERVER_BIN, tempDir } from './support/server-process.js';

describe('stdio transport of the built server', () => {
  let dir: string;
  beforeAll(() => {
    assertBuilt();
    dir = tempDir('stdio');
  });
  afterAll(() => removeDir(dir));

  it('serves the SDK StdioClientTransport: one process, one persistent session (C-MCP-7)', async () => {
    const errors: Error[] = [];
    const client = await connectStdioClient(['--session-id', 'stdio-e2e', '--state-dir', join(dir, 'sdk')], 'stdio-e2e', (error) => errors.push(error));
    expect(client.getServerVersion()?.name).toBe('cli-mcp-server');
    expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(['bash']);
    expect(structuredOf(await bash(client, 'cd /tmp && export S=1 && pwd')).stdout).toBe('/tmp');
    const again = await bash(client, 'pwd; echo $S');
    expect(textOf(again)).toMatch(/^\/tmp\n1\n\[exit 0 · \d+ ms\]$/);
    await client.close();
    expect(errors).toEqual([]); // a non-protocol line on stdout would surface here as a parse error
  });

  it('runs several stdio servers on one state dir at once (one per client window)', async () => {
    const open = (): Promise<Client> => connectStdioClient(['--state-dir', join(dir, 'shared')], 'window');
    const [one, two] = await Promise.all([open(), open()]);
    await expectSeparateWorkspaces(one, two);
  });

  it('writes nothing but protocol to stdout, uses a generated session, and on stdin EOF ends the sandbox and exits 0', async () => {
    const child = spawn(process.execPath, [SERVER_BIN, '--transport', 'stdio', '--state-dir', join(dir, 'raw')], {
      cwd: REPO_ROOT,
      env: cleanEnv(),
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    child.stderr.resume();
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    const lines: string[] = [];
    const responses = new Map<number, Record<string, unknown>>();
    createInterface({ input: child.stdout }).on('line', (line) => {
      lines.push(line);
      const message = JSON.parse(line) as { id?: number };
      if (typeof message.id === 'number') responses.set(message.id, message as Record<string, unknown>);
    });
    const send = (message: object): void => {
      child.stdin.write(`${JSON.stringify(message)}\n`);
    };
    send({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } });
    send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'bash', arguments: { command: 'echo hi' } } });
    await eventually(() => responses.has(2), 'the bash result', 60_000);
    expect(responses.get(2)).toMatchObject({ result: { structuredContent: { stdout: 'hi', exit_code: 0 } } });
    const sandboxes = descendantsOf(child.pid!).map(processRef);
    expect(sandboxes.length).toBeGreaterThan(0);
    const [session, ...others] = readdirSync(join(dir, 'raw', 'stdio'));
    expect(others).toEqual([]);
    expect(session).toMatch(/^stdio-[0-9a-f]{8}$/);
    expect(readdirSync(join(dir, 'raw', 'stdio', session!, 'sessions'))).toEqual([session]);

    child.stdin.end();
    expect(await exited).toBe(0);
    for (const line of lines) expect(JSON.parse(line)).toHaveProperty('jsonrpc', '2.0');
    await eventually(() => sandboxes.every((pid) => !isAlive(pid)), 'the sandbox processes to exit');
    expect(existsSync(join(dir, 'raw', 'stdio', session!))).toBe(false);
  });

  it('exits 0 on SIGTERM with no sandbox left behind', async () => {
    const child = spawn(process.execPath, [SERVER_BIN, '--transport', 'stdio', '--session-id', 'stdio-term', '--state-dir', join(dir, 'term')], {
      cwd: REPO_ROOT,
      env: cleanEnv(),
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    child.stderr.resume();
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    let answered = false;
    createInterface({ input: child.stdout }).on('line', (line) => {
      if ((JSON.parse(line) as { id?: number }).id === 2) answered = true;
    });
    child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } })}\n`);
    child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'bash', arguments: { command: 'true' } } })}\n`);
    await eventually(() => answered, 'the bash result', 60_000);
    const sandboxes = descendantsOf(child.pid!).map(processRef);
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    await eventually(() => sandboxes.every((pid) => !isAlive(pid)), 'the sandbox processes to exit');
  });
});
