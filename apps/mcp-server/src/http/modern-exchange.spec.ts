import { createServer, request as httpRequest, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createMcpHandler, isLegacyRequest, Server, type McpHttpHandler } from '@modelcontextprotocol/server';
import { afterEach, describe, expect, it } from 'vitest';
import { isLegacyPost, serveModernPost, webRequestOf } from './modern-exchange.js';

const ENVELOPE = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientInfo': { name: 'spec', version: '1' },
  'io.modelcontextprotocol/clientCapabilities': {},
};
const MODERN_HEADERS = { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': 'bash' };
const call = (meta?: object) => ({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'bash', arguments: { command: 'true' }, ...(meta ? { _meta: meta } : {}) } });

/** Requests of both eras and the odd ones in between, as Node's parser hands over their headers. */
const CASES: Array<{ name: string; headers: IncomingHttpHeaders; body: unknown }> = [
  { name: '2025 initialize', headers: { 'mcp-protocol-version': '2025-06-18' }, body: { jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'c', version: '1' } } } },
  { name: '2025 tools/call', headers: { 'mcp-protocol-version': '2025-06-18' }, body: call() },
  { name: '2025 tools/call without a version header', headers: {}, body: call() },
  { name: '2026 tools/call', headers: MODERN_HEADERS, body: call(ENVELOPE) },
  { name: '2026 tools/call, headers with spaces around', headers: { 'mcp-protocol-version': ' 2026-07-28 ', 'mcp-method': 'tools/call ', 'mcp-name': ' bash' }, body: call(ENVELOPE) },
  { name: 'envelope without the routing headers', headers: {}, body: call(ENVELOPE) },
  { name: 'modern headers on a body without the envelope', headers: MODERN_HEADERS, body: call() },
  { name: 'routing headers naming another method', headers: { ...MODERN_HEADERS, 'mcp-method': 'tools/list' }, body: call(ENVELOPE) },
  { name: 'a version header given twice', headers: { ...MODERN_HEADERS, 'mcp-protocol-version': ['2026-07-28', '2025-06-18'] }, body: call(ENVELOPE) },
  { name: 'a notification', headers: { 'mcp-protocol-version': '2025-06-18' }, body: { jsonrpc: '2.0', method: 'notifications/initialized' } },
  { name: 'a modern notification', headers: MODERN_HEADERS, body: { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 1, _meta: ENVELOPE } } },
  { name: 'a batch', headers: {}, body: [call(), call()] },
  { name: 'a posted response', headers: {}, body: { jsonrpc: '2.0', id: 3, result: {} } },
  { name: 'not JSON-RPC at all', headers: MODERN_HEADERS, body: { hello: 'world' } },
  { name: 'a JSON string', headers: {}, body: 'tools/call' },
  { name: 'null', headers: {}, body: null },
  { name: 'no body', headers: MODERN_HEADERS, body: undefined },
];

function webRequest(headers: IncomingHttpHeaders): Request {
  const init = new Headers();
  for (const [name, value] of Object.entries(headers)) {
    for (const item of Array.isArray(value) ? value : [value ?? '']) init.append(name, item);
  }
  return new Request('http://localhost/mcp', { method: 'POST', headers: init });
}

describe(isLegacyPost.name, () => {
  // C-MCP-12: the era decision must be the SDK's own; building a web Request for it was ≈ 60 µs per call (issue 11).
  it.each(CASES)('routes $name as the SDK’s isLegacyRequest does', async ({ headers, body }) => {
    expect(isLegacyPost(headers, body)).toBe(await isLegacyRequest(webRequest(headers), body));
  });

  it('tells the eras apart (the cases above are not all one answer)', () => {
    expect(isLegacyPost(MODERN_HEADERS, call(ENVELOPE))).toBe(false);
    expect(isLegacyPost({ 'mcp-protocol-version': '2025-06-18' }, call())).toBe(true);
  });
});

/** One loopback server whose every POST `serve`s; the writes each response made are counted. */
async function serving(serve: (res: ServerResponse, req: IncomingMessage) => Promise<unknown>) {
  const writes: string[] = [];
  const server = createServer((req, res) => {
    const write = res.write.bind(res);
    const end = res.end.bind(res);
    res.write = ((...args: Parameters<typeof write>) => (writes.push('write'), write(...args))) as typeof res.write;
    res.end = ((...args: Parameters<typeof end>) => (writes.push(args[0] === undefined ? 'end' : 'end(body)'), end(...args))) as typeof res.end;
    void serve(res, req);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  open.push(server);
  return { port: (server.address() as AddressInfo).port, writes };
}

const open: Array<ReturnType<typeof createServer>> = [];
afterEach(async () => {
  for (const server of open.splice(0)) await new Promise((resolve) => server.close(resolve));
});

/** POSTs `body`; resolves with the status, headers and each body chunk as it arrived (`onChunk` sees them live). */
function post(port: number, body: unknown, headers: Record<string, string> = {}, onChunk?: (chunk: string) => void) {
  return new Promise<{ status: number; headers: IncomingHttpHeaders; chunks: string[] }>((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, method: 'POST', path: '/mcp', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers } }, (res) => {
      const chunks: string[] = [];
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (chunks.push(chunk), onChunk?.(chunk)));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, chunks }));
    });
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
}

const handlerOf = (response: () => Response) => ({ fetch: () => Promise.resolve(response()) }) as unknown as McpHttpHandler;
const request = () => new Request('http://localhost/mcp', { method: 'POST' });

describe(serveModernPost.name, () => {
  // Issue 11, round 6: piped through Readable.fromWeb, a JSON answer left as headers, a chunk and the chunked
  // terminator in separate writes; whole, it leaves as one, with its length.
  it('answers a JSON response in one write with a content-length', async () => {
    const answer = JSON.stringify({ jsonrpc: '2.0', id: 1, result: { content: [] } });
    const { port, writes } = await serving((res) => serveModernPost(handlerOf(() => Response.json(JSON.parse(answer), { headers: { 'x-extra': 'kept' } })), request(), {}, res));
    const reply = await post(port, {});
    expect(reply).toMatchObject({ status: 200, chunks: [answer] });
    expect(reply.headers).toMatchObject({ 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(answer)), 'x-extra': 'kept' });
    expect(reply.headers['transfer-encoding']).toBeUndefined();
    expect(writes).toEqual(['end(body)']);
  });

  it('streams an SSE response: its first event arrives before the handler sent the last', async () => {
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const sse = () => new Response(new ReadableStream<Uint8Array>({
      async start(controller) {
        controller.enqueue(new TextEncoder().encode('event: message\ndata: {"progress":1}\n\n'));
        await released;
        controller.enqueue(new TextEncoder().encode('event: message\ndata: {"result":{}}\n\n'));
        controller.close();
      },
    }), { headers: { 'content-type': 'text/event-stream' } });
    const { port } = await serving((res) => serveModernPost(handlerOf(sse), request(), {}, res));
    const reply = await post(port, {}, {}, (chunk) => {
      if (chunk.includes('"progress":1')) release();
    });
    expect(reply.headers['content-type']).toBe('text/event-stream');
    expect(reply.chunks.join('')).toContain('"result":{}');
    expect(reply.chunks.length).toBeGreaterThan(1);
  });

  it('ends the exchange when a JSON body fails to read, instead of leaving the client waiting', async () => {
    const broken = () => new Response(new ReadableStream({ start: (controller) => controller.error(new Error('broken body')) }), { headers: { 'content-type': 'application/json' } });
    const { port } = await serving((res) => serveModernPost(handlerOf(broken), request(), {}, res));
    await expect(post(port, {})).rejects.toThrow(/socket hang up|ECONNRESET/);
  });

  it('answers a bodiless response with its status alone', async () => {
    const { port } = await serving((res) => serveModernPost(handlerOf(() => new Response(null, { status: 202 })), request(), {}, res));
    expect(await post(port, {})).toMatchObject({ status: 202, chunks: [] });
  });

  // The one-write path relies on the SDK's JSON answers being whole when its handler resolves: checked on the real one.
  it('gives the SDK v2 handler’s own JSON answer a content-length', async () => {
    const handler = createMcpHandler(() => {
      const server = new Server({ name: 'spec', version: '1' }, { capabilities: { tools: {} } });
      server.setRequestHandler('tools/call', () => ({ content: [{ type: 'text', text: 'ok' }] }));
      return server;
    }, { legacy: 'reject' });
    const { port } = await serving(async (res, req) => {
      let text = '';
      for await (const chunk of req) text += String(chunk);
      const url = new URL('http://127.0.0.1/mcp');
      await serveModernPost(handler, webRequestOf(url, req.headers, res), JSON.parse(text), res);
    });
    const reply = await post(port, call(ENVELOPE), MODERN_HEADERS);
    expect(reply.status).toBe(200);
    expect(reply.headers['content-length']).toBe(String(Buffer.byteLength(reply.chunks.join(''))));
    expect(JSON.parse(reply.chunks.join(''))).toMatchObject({ id: 1, result: { content: [{ type: 'text', text: 'ok' }] } });
    await handler.close();
  });
});
