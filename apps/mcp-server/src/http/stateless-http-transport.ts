import type { IncomingHttpHeaders, ServerResponse } from 'node:http';
import type { Transport, TransportSendOptions } from '@modelcontextprotocol/sdk/shared/transport.js';
import { JSONRPCMessageSchema, SUPPORTED_PROTOCOL_VERSIONS, type JSONRPCMessage, type RequestId } from '@modelcontextprotocol/sdk/types.js';
import { jsonRpcErrorBody } from './boundary/access-policy.js';
import { CLIENT_ID_PATTERN } from './client-id.js';
import { mediaType } from './media-type.js';

/** SDK parity: most messages accepted in one batch. */
const MAX_BATCH = 100;
/** An SSE comment this often keeps proxies from cutting a long, silent command (SDK parity: 15 s). */
const DEFAULT_KEEP_ALIVE_MS = 15_000;
/**
 * A call answered within this long, with nothing sent before its result, is answered as one `application/json`
 * body with a `content-length` (one write, issue 11); otherwise the SSE stream's headers leave by then.
 */
const HEADER_DELAY_MS = 50;

const SSE_HEADERS = {
  'content-type': 'text/event-stream',
  'cache-control': 'no-cache, no-transform',
  connection: 'keep-alive',
  'x-accel-buffering': 'no',
};

export interface StatelessHttpTransportOptions {
  keepAliveMs?: number;
  /** Issues the client id sent as `Mcp-Session-Id` with an `initialize` answer (C-MCP-9); none when absent. */
  issueClientId?: () => string;
}

export interface IncomingPost {
  headers: IncomingHttpHeaders;
  /** Absolute URL of the request (handed to handlers as `requestInfo.url`). */
  url: URL;
  /** The body Fastify already parsed. */
  body: unknown;
}

/**
 * One stateless streamable-HTTP POST (C-MCP-8), written straight onto Node's response. Same wire behaviour as the
 * SDK's `StreamableHTTPServerTransport` without a session (406/415/400 with the same JSON-RPC bodies, 202 for
 * notifications, one SSE stream per POST that ends after the last response, keep-alive comments), without its
 * Web-streams adapter, which cost ~1 ms of CPU per call (docs/server.md, "Streamable HTTP transport"). A POST with
 * one request whose response is the first thing it sends, within HEADER_DELAY_MS, gets that response as plain JSON
 * instead (the client accepts both: it must list both in Accept, which `refuse` checks).
 */
export class StatelessHttpTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: Transport['onmessage'];
  private readonly open = new Set<RequestId>();
  private readonly keepAliveMs: number;
  private readonly issueClientId: (() => string) | undefined;
  /** The POST carried requests (it is answered with 200); `streaming` once that answer is an SSE stream. */
  private answering = false;
  private streaming = false;
  private clientIdHeader: Record<string, string> = {};
  private closed = false;
  private keepAlive?: NodeJS.Timeout;
  private headerTimer?: NodeJS.Timeout;

  constructor(
    private readonly res: ServerResponse,
    options: StatelessHttpTransportOptions = {},
  ) {
    this.keepAliveMs = options.keepAliveMs ?? DEFAULT_KEEP_ALIVE_MS;
    this.issueClientId = options.issueClientId;
  }

  start(): Promise<void> {
    return Promise.resolve();
  }

  /** Validates the POST and hands its messages to the server; answers the HTTP request itself on failure. */
  handle(post: IncomingPost): void {
    // The client left before the server was connected: run nothing (a command would run for nobody).
    if (this.closed) return;
    const refusal = refuse(post);
    if (refusal) return this.fail(...refusal);
    const raw = post.body;
    if (Array.isArray(raw) && raw.length > MAX_BATCH) {
      return this.fail(400, -32600, `Invalid Request: Batch must not exceed ${MAX_BATCH} messages`);
    }
    let messages: JSONRPCMessage[];
    try {
      messages = (Array.isArray(raw) ? raw : [raw]).map((message) => JSONRPCMessageSchema.parse(message));
    } catch {
      return this.fail(400, -32700, 'Parse error: Invalid JSON-RPC message');
    }
    const initialize = messages.some((m) => 'method' in m && m.method === 'initialize');
    if (initialize && messages.length > 1) return this.fail(400, -32600, 'Invalid Request: Only one initialization request is allowed');
    const version = post.headers['mcp-protocol-version'];
    if (!initialize && typeof version === 'string' && !SUPPORTED_PROTOCOL_VERSIONS.includes(version)) {
      const supported = SUPPORTED_PROTOCOL_VERSIONS.join(', ');
      return this.fail(400, -32000, `Bad Request: Unsupported protocol version: ${version} (supported versions: ${supported})`);
    }
    const extra = { requestInfo: { headers: post.headers, url: post.url } };
    for (const message of messages) if (isRequest(message)) this.open.add(message.id);
    if (this.open.size === 0) {
      // Only notifications or responses: acknowledged at once, no stream.
      this.res.writeHead(202).end();
      for (const message of messages) this.onmessage?.(message, extra);
      return;
    }
    this.answering = true;
    if (initialize && this.issueClientId) this.clientIdHeader = { 'mcp-session-id': this.issueClientId() };
    // A batch answers as a stream (several responses); one request waits to see whether JSON will do.
    if (this.open.size > 1) this.stream();
    this.headerTimer = setTimeout(() => this.flushHeaders(), HEADER_DELAY_MS);
    for (const message of messages) this.onmessage?.(message, extra);
  }

  send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    const isResponse = 'id' in message && !('method' in message);
    const requestId = isResponse ? message.id : options?.relatedRequestId;
    // Stateless: no standalone stream, so messages not tied to this POST's requests have nowhere to go.
    if (!this.answering || requestId === undefined || !this.open.has(requestId)) {
      if (isResponse) return Promise.reject(new Error(`No connection established for request ID: ${String(requestId)}`));
      return Promise.resolve();
    }
    if (isResponse) this.open.delete(requestId);
    const last = isResponse && this.open.size === 0;
    if (last && !this.streaming) {
      this.answerJson(JSON.stringify(message));
      return Promise.resolve();
    }
    this.stream();
    const event = `event: message\ndata: ${JSON.stringify(message)}\n\n`;
    if (last) this.finish(event);
    else this.write(event);
    return Promise.resolve();
  }

  close(): Promise<void> {
    if (this.closed) return Promise.resolve();
    this.stopTimers();
    // Ended before its answer (shutdown, or the client left): an empty stream, as before issue 11.
    if (this.answering) this.stream();
    this.closed = true;
    if (!this.res.writableEnded) this.res.end();
    this.onclose?.();
    return Promise.resolve();
  }

  /** From here on the answer is an SSE stream (idempotent). */
  private stream(): void {
    if (this.streaming || this.res.writableEnded) return;
    this.streaming = true;
    this.res.writeHead(200, { ...SSE_HEADERS, ...this.clientIdHeader });
    this.keepAlive = setInterval(() => this.write(': keepalive\n\n'), this.keepAliveMs);
  }

  /** The only response, before anything else was sent: status, headers and body in one write. */
  private answerJson(body: string): void {
    this.stopTimers();
    if (this.closed || this.res.writableEnded) return;
    this.res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), ...this.clientIdHeader });
    this.res.end(body);
  }

  private write(text: string): void {
    if (this.closed || this.res.writableEnded) return;
    clearTimeout(this.headerTimer);
    this.res.write(text);
  }

  /** Last response: the event and the end of the stream leave in one write. */
  private finish(event: string): void {
    this.stopTimers();
    if (!this.res.writableEnded) this.res.end(event);
  }

  private flushHeaders(): void {
    if (this.closed || this.res.writableEnded) return;
    this.stream();
    // Not `headersSent`: it is true as soon as writeHead ran, while the headers still wait for the first write.
    this.res.flushHeaders();
  }

  private stopTimers(): void {
    clearTimeout(this.headerTimer);
    clearInterval(this.keepAlive);
  }

  private fail(status: number, code: number, message: string): void {
    this.onerror?.(new Error(message));
    this.res.writeHead(status, { 'content-type': 'application/json' }).end(jsonRpcErrorBody(message, code));
  }
}

function isRequest(message: JSONRPCMessage): message is JSONRPCMessage & { id: RequestId; method: string } {
  return 'method' in message && 'id' in message;
}

/** Header checks, in the SDK's order: Accept, then Content-Type. */
function refuse(post: IncomingPost): [number, number, string] | undefined {
  const accept = post.headers.accept ?? '';
  if (!accept.includes('application/json') || !accept.includes('text/event-stream')) {
    return [406, -32000, 'Not Acceptable: Client must accept both application/json and text/event-stream'];
  }
  if (mediaType(post.headers['content-type']) !== 'application/json') return [415, -32000, 'Unsupported Media Type: Content-Type must be application/json'];
  const clientId = post.headers['mcp-session-id'];
  if (clientId !== undefined && (typeof clientId !== 'string' || !CLIENT_ID_PATTERN.test(clientId))) {
    return [400, -32000, 'Bad Request: Mcp-Session-Id must be 1 to 128 visible ASCII characters'];
  }
  return undefined;
}
