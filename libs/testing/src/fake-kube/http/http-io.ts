import type { IncomingMessage, ServerResponse } from 'node:http';
import { Statuses } from '../api/status.js';
import type { Status } from '../api/types.js';

/** The request body was larger than the server accepts (413). */
export class BodyTooLarge extends Error {}

/** The real server's request body limit. */
export const DEFAULT_MAX_BODY_BYTES = 3 * 1024 * 1024;

/** Reads a request body as UTF-8, refusing more than `limit` bytes with BodyTooLarge. */
export function readBody(req: IncomingMessage, limit: number): Promise<string> {
  return new Promise((resolveBody, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        reject(new BodyTooLarge());
        req.removeAllListeners('data');
        req.resume();
        return;
      }
      chunks.push(chunk);
    });
    req.once('end', () => resolveBody(Buffer.concat(chunks).toString('utf8')));
    req.once('error', reject);
  });
}

/** 406 when the client accepts nothing this JSON-only server can produce. */
export function checkAccept(req: IncomingMessage): void {
  const accept = req.headers.accept;
  if (!accept) return;
  const types = accept.split(',').map((t) => t.split(';')[0]?.trim().toLowerCase());
  if (!types.some((t) => t === 'application/json' || t === '*/*' || t === 'application/*')) throw Statuses.notAcceptable();
}

export function sendJson(res: ServerResponse, code: number, body: unknown, headers: Record<string, string> = {}): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const text = JSON.stringify(body);
  res.writeHead(code, { 'Content-Type': 'application/json', 'Cache-Control': 'no-cache, private', 'Content-Length': Buffer.byteLength(text), ...headers });
  res.end(text);
}

export function sendStatus(res: ServerResponse, status: Status, headers: Record<string, string> = {}): void {
  sendJson(res, status.code ?? 500, status, headers);
}

/** The 500 Status for an unexpected exception (a bug in the fake). */
export function internalError(error: unknown): Status {
  return Statuses.internalError(error instanceof Error ? error.message : String(error)).status;
}
