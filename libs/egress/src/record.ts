import type { Duplex } from 'node:stream';
import type { ServerResponse } from 'node:http';
import type { AuditSink } from './audit.js';
import { EgressError } from './errors.js';
import type { EgressMetrics } from './metrics.js';
import type { RouteLabel } from './routes.js';

/** Who a connection belongs to: given by the caller's listener (a per-session Unix socket, a pod IP), never by the client. */
export interface ConnectionContext {
  readonly sessionId: string;
  readonly instance: string;
}

/** The fields of one decision that the handler knows; the recorder adds time, duration and the context. */
export interface Decision {
  readonly method: string;
  readonly host: string;
  readonly path: string;
  readonly status: number;
  readonly bytes: number;
  readonly reason: string;
  readonly route: RouteLabel;
  readonly credentialInjected: boolean;
}

/** Writes the audit line and the metrics of each decision (C-EGR-7); a throwing sink never breaks traffic. */
export class Recorder {
  constructor(private readonly audit: AuditSink, private readonly metrics: EgressMetrics) {}

  record(context: ConnectionContext, started: number, decision: Decision, headersAt = performance.now()): void {
    const verdict = decision.reason === 'ok' ? 'allow' : 'deny';
    this.metrics.record(verdict, decision.route, (headersAt - started) / 1000);
    try {
      this.audit({
        time: new Date().toISOString(),
        session: context.sessionId,
        instance: context.instance,
        method: decision.method,
        host: decision.host,
        path: decision.path,
        status: decision.status,
        bytes: decision.bytes,
        ms: Math.round((performance.now() - started) * 1000) / 1000,
        decision: verdict,
        reason: decision.reason,
        route: decision.route,
        credentialInjected: decision.credentialInjected,
      });
    } catch {
      // The audit sink is the caller's; its failure must not become the client's.
    }
  }
}

/** A refusal as a complete HTTP/1.1 response on a raw socket (before or instead of a tunnel), then closed. */
export function refuseSocket(socket: Duplex, error: EgressError): void {
  // Upgrade and CONNECT sockets have lost node:http's error listener; a reset must not become an uncaught error.
  socket.on('error', () => socket.destroy());
  const body = error.body();
  if (socket.writable) {
    socket.end(
      `HTTP/1.1 ${error.status} ${reasonPhrase(error.status)}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
    );
  }
  // Lingering close: the client may still be sending its request when the refusal is written (a connection refused
  // on accept is answered before a byte is read). Closing a socket with unread bytes resets it (a TCP RST; on a Unix
  // socket the peer reads ECONNRESET) and the client loses the answer. So what it sends is read and dropped until it
  // closes its side, for at most a second.
  socket.resume();
  socket.once('end', () => socket.destroy());
  setTimeout(() => socket.destroy(), 1000).unref();
}

/** A refusal on a response whose headers are not sent yet; a stream already under way is cut instead. */
export function refuseResponse(res: ServerResponse, error: EgressError): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const body = error.body();
  res.writeHead(error.status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), connection: 'close' });
  res.end(body);
}

function reasonPhrase(status: number): string {
  return ({ 400: 'Bad Request', 403: 'Forbidden', 405: 'Method Not Allowed', 408: 'Request Timeout', 421: 'Misdirected Request', 429: 'Too Many Requests', 431: 'Request Header Fields Too Large', 502: 'Bad Gateway', 504: 'Gateway Timeout' } as Record<number, string>)[status] ?? 'Error';
}

