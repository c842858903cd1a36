import type { RouteLabel } from './routes.js';

/** One decision of the gateway (C-EGR-7). Never a credential, a query string or a body. */
export interface AuditRecord {
  readonly time: string;
  readonly session: string;
  readonly instance: string;
  readonly method: string;
  /** The canonical `host:port`, or the raw authority (cut to 300 characters) when it did not parse. */
  readonly host: string;
  /** The path without its query; empty for a CONNECT. */
  readonly path: string;
  readonly status: number;
  /** Response body bytes sent to the client (for a CONNECT: 0; each request inside is its own record). */
  readonly bytes: number;
  readonly ms: number;
  readonly decision: 'allow' | 'deny';
  /** `ok` or the error code of errors.ts. */
  readonly reason: string;
  readonly route: RouteLabel;
  readonly credentialInjected: boolean;
}

/** The audit port: apps write the records as JSON lines to a file or stdout. */
export type AuditSink = (record: AuditRecord) => void;

/** A sink writing one JSON line per record, e.g. to a file stream (`--egress-audit-log`) or process.stdout. */
export function jsonLineSink(write: (line: string) => void): AuditSink {
  return (record) => write(`${JSON.stringify(record)}\n`);
}
