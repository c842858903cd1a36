import { createServer, request, type IncomingHttpHeaders, type Server as HttpServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { StatelessHttpTransport } from './stateless-http-transport.js';

const HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
type Extra = Parameters<Parameters<Server['setRequestHandler']>[1]>[1];

interface Harness {
  url: string;
  /** Extra info each `tools/call` handler saw, and whether its signal was aborted by the end. */
  calls: { extra: Extra; aborted: () => boolean }[];
  notifications: string[];
  closed: number;
}

let http: HttpServer | undefined;

/** A real SDK Server per POST behind a plain node:http server, the way the controller wires it. */
async function serve(options: { keepAliveMs?: number; toolDelayMs?: number; issueClientId?: () => string; silent?: boolean } = {}): Promise<Harness> {
  const harness: Harness = { url: '', calls: [], notifications: [], closed: 0 };
  http = createServer((req, res) => {
    let text = '';
    req.on('data', (chunk: Buffer) => (text += chunk.toString()));
    req.on('end', () => {
      const server = new Server({ name: 't', version: '1' }, { capabilities: { tools: {} } });
      server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: [] }));
      server.setRequestHandler(CallToolRequestSchema, async (call, extra: Extra) => {
        harness.calls.push({ extra, aborted: () => extra.signal.aborted });
        if (!options.silent) await extra.sendNotification({ method: 'notifications/progress', params: { progressToken: 1, progress: 1 } } as never);
        await new Promise((resolve) => setTimeout(resolve, options.toolDelayMs ?? 0));
        return { content: [{ type: 'text', text: `ran ${String(call.params.arguments?.n)}` }] };
      });
      server.fallbackNotificationHandler = async (n) => void harness.notifications.push(n.method);
      const transport = new StatelessHttpTransport(res, { keepAliveMs: options.keepAliveMs, issueClientId: options.issueClientId });
      transport.onclose = () => (harness.closed += 1);
      res.on('close', () => void server.close());
      void server.connect(transport).then(() => {
        let body: unknown = text;
        try {
          body = JSON.parse(text);
        } catch {
          // handed over as a string, like Fastify's text/plain parser
        }
        transport.handle({ headers: req.headers, url: new URL(req.url ?? '/', 'http://127.0.0.1'), body });
      });
    });
  });
  await new Promise<void>((resolve) => http!.listen(0, '127.0.0.1', resolve));
  harness.url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`;
  return harness;
}

interface Reply {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
  /** ms from sending until the status line arrived / until the end. */
  headersAt: number;
  endedAt: number;
}

function post(url: string, body: unknown, headers: Record<string, string> = HEADERS, abortAfterMs?: number): Promise<Reply> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'POST', headers }, (res) => {
      const headersAt = performance.now() - started;
      let text = '';
      res.on('data', (chunk: Buffer) => (text += chunk.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text, headersAt, endedAt: performance.now() - started }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(typeof body === 'string' ? body : JSON.stringify(body));
    if (abortAfterMs !== undefined) setTimeout(() => req.destroy(), abortAfterMs);
  });
}

const call = (id: number, n = id) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'x', arguments: { n } } });
const events = (body: string) => body.split('\n\n').filter((e) => e.startsWith('event: message\ndata: ')).map((e) => JSON.parse(e.slice(21)));

afterEach(async () => {
  http?.closeAllConnections();
  await new Promise<void>((resolve) => (http ? http.close(() => resolve()) : resolve()));
  http = undefined;
});

describe(StatelessHttpTransport.name, () => {
  it.each([
    ['Accept without text/event-stream', '', { ...HEADERS, accept: 'application/json' }, 406, -32000, /^Not Acceptable/],
    ['a text/plain body', '', { ...HEADERS, 'content-type': 'text/plain' }, 415, -32000, /^Unsupported Media Type/],
    ['a body that is not JSON-RPC', { hello: 1 }, HEADERS, 400, -32700, /^Parse error: Invalid JSON-RPC message/],
    ['an Mcp-Session-Id with a control character', call(1), { ...HEADERS, 'mcp-session-id': 'a\tb' }, 400, -32000, /Mcp-Session-Id must be/],
    ['a batch over 100 messages', Array.from({ length: 101 }, (_, i) => call(i)), HEADERS, 400, -32600, /Batch must not exceed 100/],
    ['initialize with another message', [{ jsonrpc: '2.0', id: 1, method: 'initialize', params: {} }, call(2)], HEADERS, 400, -32600, /Only one initialization/],
    ['an unsupported protocol version', call(1), { ...HEADERS, 'mcp-protocol-version': '1999-01-01' }, 400, -32000, /Unsupported protocol version: 1999-01-01/],
  ])('refuses %s with the SDK status and JSON-RPC error', async (_what, body, headers, status, code, message) => {
    const harness = await serve();
    const reply = await post(harness.url, body, headers);
    expect(reply.status).toBe(status);
    expect(reply.headers['content-type']).toBe('application/json');
    expect(JSON.parse(reply.body)).toEqual({ jsonrpc: '2.0', id: null, error: { code, message: expect.stringMatching(message) } });
    expect(harness.calls).toHaveLength(0);
  });

  it('issues a client id as Mcp-Session-Id with an initialize answer only (C-MCP-9)', async () => {
    const harness = await serve({ issueClientId: () => 'issued-1' });
    const init = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'c', version: '1' } } };
    expect((await post(harness.url, init)).headers['mcp-session-id']).toBe('issued-1');
    const later = await post(harness.url, call(2), { ...HEADERS, 'mcp-session-id': 'issued-1' });
    expect(later.status).toBe(200);
    expect(later.headers['mcp-session-id']).toBeUndefined();
  });

  it('accepts notifications with 202 and no body, and delivers them', async () => {
    const harness = await serve();
    const reply = await post(harness.url, { jsonrpc: '2.0', method: 'notifications/test' });
    expect(reply).toMatchObject({ status: 202, body: '' });
    expect(harness.notifications).toEqual(['notifications/test']);
  });

  it('answers a request on an SSE stream: related notifications first, then the result, then the end', async () => {
    const harness = await serve();
    const reply = await post(harness.url, call(7), { ...HEADERS, 'mcp-protocol-version': '2025-06-18', 'x-session-id': 's1' });
    expect(reply.status).toBe(200);
    expect(reply.headers).toMatchObject({ 'content-type': 'text/event-stream', 'cache-control': 'no-cache, no-transform' });
    expect(events(reply.body)).toEqual([
      { jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 1, progress: 1 } },
      { jsonrpc: '2.0', id: 7, result: { content: [{ type: 'text', text: 'ran 7' }] } },
    ]);
    expect(harness.calls[0]?.extra.requestInfo?.headers['x-session-id']).toBe('s1');
    expect(harness.closed).toBe(1);
  });

  // Issue 11: one write per answer where nothing else has to be streamed.
  it('answers a quick call that sends nothing before its result as application/json with a content-length', async () => {
    const harness = await serve({ silent: true });
    const reply = await post(harness.url, call(7));
    expect(reply.status).toBe(200);
    expect(reply.headers['content-type']).toBe('application/json');
    expect(reply.headers['transfer-encoding']).toBeUndefined();
    expect(Number(reply.headers['content-length'])).toBe(Buffer.byteLength(reply.body));
    expect(JSON.parse(reply.body)).toEqual({ jsonrpc: '2.0', id: 7, result: { content: [{ type: 'text', text: 'ran 7' }] } });
    expect(harness.closed).toBe(1);
  });

  it('issues the client id with a JSON initialize answer too', async () => {
    const harness = await serve({ issueClientId: () => 'issued-2' });
    const init = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'c', version: '1' } } };
    const reply = await post(harness.url, init);
    expect(reply.headers).toMatchObject({ 'content-type': 'application/json', 'mcp-session-id': 'issued-2' });
    expect(JSON.parse(reply.body)).toMatchObject({ id: 1, result: { protocolVersion: '2025-06-18' } });
  });

  it('keeps SSE for a silent call that runs past the header deadline, and for a batch', async () => {
    const harness = await serve({ toolDelayMs: 120, silent: true });
    const slow = await post(harness.url, call(1));
    expect(slow.headers['content-type']).toBe('text/event-stream');
    expect(events(slow.body)).toMatchObject([{ id: 1 }]);
    const batch = await post(harness.url, [call(2), call(3)]);
    expect(batch.headers['content-type']).toBe('text/event-stream');
    expect(events(batch.body).map((m) => m.id).sort()).toEqual([2, 3]);
  });

  it('keeps the stream open until every request of a batch is answered', async () => {
    const harness = await serve({ toolDelayMs: 20 });
    const reply = await post(harness.url, [call(1), call(2), { jsonrpc: '2.0', id: 3, method: 'tools/list' }]);
    const results = events(reply.body).filter((m) => 'id' in m);
    expect(results.map((m) => m.id).sort()).toEqual([1, 2, 3]);
  });

  it('sends the headers of a silent running call long before its result (no event, no keep-alive yet)', async () => {
    const harness = await serve({ toolDelayMs: 400, keepAliveMs: 60_000, silent: true });
    const reply = await post(harness.url, call(1));
    expect(reply.headersAt).toBeLessThan(reply.endedAt - 200);
    expect(events(reply.body)).toMatchObject([{ id: 1 }]);
  });

  it('sends the headers within 50 ms of a call that is still running, and SSE comments as keep-alive', async () => {
    const harness = await serve({ toolDelayMs: 400, keepAliveMs: 100 });
    const reply = await post(harness.url, call(1));
    expect(reply.headersAt).toBeLessThan(reply.endedAt - 200);
    expect(reply.body.match(/^: keepalive$/gm)?.length).toBeGreaterThanOrEqual(2);
    expect(events(reply.body).at(-1)).toMatchObject({ id: 1 });
  });

  it('runs nothing when the connection closed before the POST was handed over', async () => {
    const writes: string[] = [];
    const res = { writableEnded: false, end: () => writes.push('end'), writeHead: () => writes.push('head') } as unknown as ServerResponse;
    const transport = new StatelessHttpTransport(res);
    const received: unknown[] = [];
    transport.onmessage = (message) => received.push(message);
    await transport.close();
    transport.handle({ headers: HEADERS, url: new URL('http://127.0.0.1/mcp'), body: call(1) });
    expect(received).toEqual([]);
    expect(writes).toEqual(['end']);
  });

  it('a dropped connection closes the transport and aborts the running handler', async () => {
    const harness = await serve({ toolDelayMs: 2000 });
    await expect(post(harness.url, call(1), HEADERS, 150)).rejects.toThrow();
    await expect.poll(() => harness.closed, { timeout: 2000 }).toBe(1);
    expect(harness.calls[0]?.aborted()).toBe(true);
  });
});
