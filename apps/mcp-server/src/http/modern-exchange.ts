import type { IncomingHttpHeaders, ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { isLegacyRequest, type McpHttpHandler } from '@modelcontextprotocol/server';

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

/** Whether the SDK routes this POST to the 2025 era (`initialize`, no `_meta` envelope claim): C-MCP-12. */
export function isLegacyPost(request: Request, body: unknown): Promise<boolean> {
  return isLegacyRequest(request, body);
}

/**
 * Serves one modern (2026-07-28) POST with the SDK's handler and writes its answer onto Node's response; resolves
 * with the HTTP status once the answer is written.
 */
export async function serveModernPost(handler: McpHttpHandler, request: Request, body: unknown, res: ServerResponse): Promise<number> {
  const response = await handler.fetch(request, { parsedBody: body });
  res.writeHead(response.status, Object.fromEntries(response.headers));
  if (!response.body) {
    res.end();
    return response.status;
  }
  await pipeline(Readable.fromWeb(response.body as import('node:stream/web').ReadableStream<Uint8Array>), res).catch(() => undefined);
  return response.status;
}
