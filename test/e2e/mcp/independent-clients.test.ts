import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT, useHttpServer } from './support/server-process.js';
import { mcpAnswerMessages } from '@cli-mcp/testing';
import { describeWhenReady, toolProblem } from '../../support/prerequisites.js';

const run = promisify(execFile);
const curlProblem = toolProblem('curl');


/** Clients that share no code with our server: the inspector CLI (its own SDK copy) and raw curl. */
describe('independent MCP clients against the built server', () => {

  const server = useHttpServer();

  it('@modelcontextprotocol/inspector-cli calls bash with an X-Session-ID header', async () => {
    // Run from test/: the CLI reads ../package.json relative to the cwd (stack-notes §F).
    const cli = join(REPO_ROOT, 'node_modules/@modelcontextprotocol/inspector-cli/build/index.js');
    const args = [cli, server().mcpUrl, '--transport', 'http', '--header', 'X-Session-ID: s-1', '--method', 'tools/call', '--tool-name', 'bash', '--tool-arg', 'command=pwd'];
    const { stdout } = await run(process.execPath, args, { cwd: join(REPO_ROOT, 'test'), timeout: 60_000 });
    const result = JSON.parse(stdout.slice(stdout.indexOf('{'))) as { content: Array<{ text: string }>; structuredContent: { stdout: string } };
    expect(result.structuredContent.stdout).toBe('/workspace');
    expect(result.content[0]?.text).toMatch(/^\/workspace\n\[exit 0 · \d+ ms\]$/);
  });

  it('@modelcontextprotocol/inspector-cli lists exactly one tool', async () => {
    const cli = join(REPO_ROOT, 'node_modules/@modelcontextprotocol/inspector-cli/build/index.js');
    const { stdout } = await run(process.execPath, [cli, server().mcpUrl, '--transport', 'http', '--method', 'tools/list'], {
      cwd: join(REPO_ROOT, 'test'),
      timeout: 60_000,
    });
    const { tools } = JSON.parse(stdout.slice(stdout.indexOf('{'))) as { tools: Array<{ name: string }> };
    expect(tools.map((tool) => tool.name)).toEqual(['bash']);
  });

  describeWhenReady('raw curl (stateless: no initialize)', curlProblem, () => {
    const curl = (body: object, headers: string[] = [], flags: string[] = []): Promise<{ stdout: string }> =>
      run(
        'curl',
        [
          '-sS', '-N', ...flags, '-X', 'POST', server().mcpUrl,
          '-H', 'content-type: application/json',
          '-H', 'accept: application/json, text/event-stream',
          '-H', 'mcp-protocol-version: 2025-06-18',
          ...headers.flatMap((header) => ['-H', header]),
          '-d', JSON.stringify(body),
        ],
        { timeout: 60_000 },
      );

    it('calls bash and streams progress then the result as SSE', async () => {
      const { stdout } = await curl(
        { jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'bash', arguments: { command: 'echo from-curl' }, _meta: { progressToken: 'p1' } } },
        ['x-session-id: curl-1'],
      );
      const messages = mcpAnswerMessages(stdout);
      const final = messages.at(-1) as { id: number; result: { content: Array<{ text: string }>; structuredContent: { stdout: string } } };
      expect(final.id).toBe(7);
      expect(final.result.structuredContent.stdout).toBe('from-curl');
      expect(final.result.content[0]?.text).toMatch(/^from-curl\n\[exit 0 · \d+ ms\]$/);
    });

    // Issue 11: one write per answer — a quick call is plain JSON with a length; a longer one streams as before.
    it('gets a quick call answered as application/json with a content-length, a longer one as SSE', async () => {
      const headed = (command: string) => curl(
        { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'bash', arguments: { command }, _meta: { progressToken: 'p3' } } },
        ['x-session-id: curl-json'],
        ['--include'],
      );
      const split = (stdout: string) => {
        const end = stdout.indexOf('\r\n\r\n');
        return { head: stdout.slice(0, end).toLowerCase(), body: stdout.slice(end + 4) };
      };
      // Quick = answered within the transport's 50 ms header delay, however busy the machine: an empty command is
      // refused before any sandbox is involved (a real command may take longer than that on a loaded runner).
      const quick = split((await headed('')).stdout);
      expect(quick.head).toMatch(/^http\/1\.1 200/);
      expect(quick.head).toContain('content-type: application/json');
      expect(quick.head).toContain(`content-length: ${Buffer.byteLength(quick.body)}`);
      expect(quick.head).not.toContain('transfer-encoding');
      expect(JSON.parse(quick.body)).toMatchObject({ id: 3, result: { isError: true, content: [{ type: 'text', text: 'command is required' }] } });
      const slow = split((await headed('sleep 0.3; echo slow')).stdout);
      // The body in the message: an answer as JSON here is an error result, and it says which.
      expect(slow.head, slow.body).toContain('content-type: text/event-stream');
      expect(mcpAnswerMessages(slow.body).at(-1)).toMatchObject({ id: 3, result: { structuredContent: { stdout: 'slow' } } });
    });

    it('gets a JSON-RPC error for an unknown tool', async () => {
      const { stdout } = await curl({ jsonrpc: '2.0', id: 8, method: 'tools/call', params: { name: 'nope', arguments: {} } }, ['x-session-id: curl-1']);
      expect(mcpAnswerMessages(stdout)[0]).toEqual({ jsonrpc: '2.0', id: 8, error: { code: -32602, message: 'unknown tool "nope"' } });
    });

    it('gets a JSON-RPC error naming the field for a wrong argument type', async () => {
      const { stdout } = await curl(
        { jsonrpc: '2.0', id: 9, method: 'tools/call', params: { name: 'bash', arguments: { command: 'ls', timeout: 'x' } } },
        ['x-session-id: curl-1'],
      );
      expect(mcpAnswerMessages(stdout)[0]).toMatchObject({ id: 9, error: { code: -32602, message: expect.stringContaining('"timeout"') } });
    });

    // C-MCP-12: the 2026-07-28 wire by hand — server/discover, then a call with the per-request _meta envelope
    // and the routing headers, no initialize.
    it('speaks 2026-07-28: server/discover, then tools/call with the _meta envelope', async () => {
      const meta = {
        'io.modelcontextprotocol/protocolVersion': '2026-07-28',
        'io.modelcontextprotocol/clientInfo': { name: 'curl', version: '1' },
        'io.modelcontextprotocol/clientCapabilities': {},
      };
      const modern = async (method: string, params: object, headers: string[]) => {
        const { stdout } = await run('curl', [
          '-sS', '-N', '-X', 'POST', server().mcpUrl,
          '-H', 'content-type: application/json', '-H', 'accept: application/json, text/event-stream',
          '-H', 'mcp-protocol-version: 2026-07-28', '-H', `mcp-method: ${method}`, ...headers.flatMap((header) => ['-H', header]),
          '-d', JSON.stringify({ jsonrpc: '2.0', id: 1, method, params: { ...params, _meta: meta } }),
        ], { timeout: 60_000 });
        return (stdout.trimStart().startsWith('{') ? [JSON.parse(stdout)] : mcpAnswerMessages(stdout)).at(-1) as { result: Record<string, unknown> };
      };
      const discover = await modern('server/discover', {}, []);
      expect(discover.result).toMatchObject({ supportedVersions: expect.arrayContaining(['2026-07-28']) });
      expect(JSON.stringify(discover.result)).toContain('"name":"cli-mcp-server"');
      const call = await modern('tools/call', { name: 'bash', arguments: { command: 'echo modern-curl' } }, ['mcp-name: bash', 'x-session-id: curl-modern']);
      expect(call.result).toMatchObject({ structuredContent: { stdout: 'modern-curl', exit_code: 0 } });
    });

    it('lists tools without X-Session-ID', async () => {
      const { stdout } = await curl({ jsonrpc: '2.0', id: 1, method: 'tools/list' });
      const [message] = mcpAnswerMessages(stdout) as Array<{ result: { tools: Array<{ name: string; annotations: object }> } }>;
      expect(message?.result.tools.map((tool) => tool.name)).toEqual(['bash']);
      expect(message?.result.tools[0]?.annotations).toMatchObject({ readOnlyHint: false, openWorldHint: true });
    });
  });
});
