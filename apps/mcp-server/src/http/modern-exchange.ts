import type { IncomingHttpHeaders, ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { classifyInboundRequest, type McpHttpHandler } from '@modelcontextprotocol/server';
import { mediaType } from './media-type.js';

/** The POST as a web `Request` (headers only: the body is already parsed), aborted when the client goes away. */
export function webRequestOf(url: URL, headers: IncomingHttpHeaders, res: ServerResponse): Request {
  const controller = new AbortController();
  // 2026-07-28: closing the response stream IS the cancellation of the request (C-MCP-9).
  res.once('close', () => {
    if (!res.writableFinished) controller.abort();
  });
  const init = new Headers();
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    for (const item of Array.isArray(value) ? value : [value]) init.append(name, item);
  }
  return new Request(url, { method: 'POST', headers: init, signal: controller.signal });
}

/**
 * Whether the SDK routes this POST to the 2025 era (`initialize`, no `_meta` envelope claim): C-MCP-12. The SDK's
 * own classifier decides, on the body Fastify parsed and the three headers it reads. `isLegacyRequest` would
 * answer the same from a web `Request` — with a parsed body it reads nothing else, and treats a POST without a
 * body as legacy, as below (`modern-exchange.spec.ts` checks the two agree) — but building that `Request` cost
 * ≈ 60 µs per call (issue 11, round 4): it is built only for the modern era, which needs it.
 */
export function isLegacyPost(headers: IncomingHttpHeaders, body: unknown): boolean {
  if (body === undefined) return true;
  return classifyInboundRequest({
    httpMethod: 'POST',
    protocolVersionHeader: headerValue(headers['mcp-protocol-version']),
    mcpMethodHeader: headerValue(headers['mcp-method']),
    mcpNameHeader: headerValue(headers['mcp-name']),
    body,
  }).kind === 'legacy';
}

/** As `Headers.get` gives it: repeated values joined with ", " (Node already joins these headers so). */
function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value.join(', ') : value;
}

/**
 * Serves one modern (2026-07-28) POST with the SDK's handler and writes its answer onto Node's response; resolves
 * with the HTTP status once the answer is written.
 *
 * A JSON answer is whole by the time the handler resolves (the SDK switches to an SSE stream as soon as a request
 * sends anything before its result, e.g. progress), so it leaves as status, headers and body with a
 * `content-length` in one write, as the 2025 era's answers do: piping it through `Readable.fromWeb` sent headers,
 * a chunk and the chunked terminator in separate writes, ≈ 0.1 ms of CPU per call more (issue 11, round 6). An
 * SSE answer is piped as it comes, so its events reach the client when they are sent.
 */
export async function serveModernPost(handler: McpHttpHandler, request: Request, body: unknown, res: ServerResponse): Promise<number> {
  const response = await handler.fetch(request, { parsedBody: body });
  const headers = Object.fromEntries(response.headers);
  if (!response.body) {
    res.writeHead(response.status, headers).end();
    return response.status;
  }
  if (mediaType(headers['content-type']) === 'application/json') {
    // A body that fails to read (it cannot, for the SDK's `Response.json`) ends the exchange rather than hang it.
    const payload = await response.arrayBuffer().then((bytes) => Buffer.from(bytes), () => undefined);
    if (payload === undefined) {
      res.destroy();
      return response.status;
    }
    delete headers['transfer-encoding'];
    res.writeHead(response.status, { ...headers, 'content-length': payload.length }).end(payload);
    return response.status;
  }
  res.writeHead(response.status, headers);
  await pipeline(Readable.fromWeb(response.body as import('node:stream/web').ReadableStream<Uint8Array>), res).catch(() => undefined);
  return response.status;
}
