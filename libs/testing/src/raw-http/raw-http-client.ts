import { connect } from 'node:net';

/** One HTTP/1.1 request, written byte for byte as given: the request target is never normalised. */
export interface RawRequest {
  readonly method: string;
  /** Sent verbatim: `/mcp/`, `/%6Dcp`, `http://127.0.0.1:1/mcp`, `*` … */
  readonly target: string;
  /** Sent in this order, names as given. `Host` is not added: tests decide it. */
  readonly headers?: ReadonlyArray<readonly [string, string]>;
  readonly body?: string;
}

export interface RawResponse {
  readonly status: number;
  /** Lower-cased names; repeated headers joined with `, `. */
  readonly headers: Readonly<Record<string, string>>;
  /** Decoded body (chunked transfer coding removed). */
  readonly body: string;
}

/**
 * Sends one request over a plain TCP socket and parses the answer (C-HTTP-5 tests). Node's and fetch's clients
 * would clean up or refuse odd request targets, so attacks on the router's normalisation need the bytes
 * themselves. `Content-Length` is added when there is a body; the response ends at its length, its last chunk or
 * the close of the connection.
 */
export function sendRaw(port: number, request: RawRequest, host = '127.0.0.1'): Promise<RawResponse> {
  const body = request.body ?? '';
  const lines = [`${request.method} ${request.target} HTTP/1.1`, ...(request.headers ?? []).map(([name, value]) => `${name}: ${value}`)];
  if (request.body !== undefined) lines.push(`Content-Length: ${Buffer.byteLength(body)}`);
  const bytes = `${lines.join('\r\n')}\r\n\r\n${body}`;
  return new Promise((resolve, reject) => {
    const socket = connect(port, host, () => socket.write(bytes));
    let received = Buffer.alloc(0);
    const finish = (response: RawResponse): void => {
      socket.destroy();
      resolve(response);
    };
    socket.on('data', (chunk: Buffer) => {
      received = Buffer.concat([received, chunk]);
      const response = parseResponse(received, request.method === 'HEAD', false);
      if (response) finish(response);
    });
    socket.on('end', () => {
      const response = parseResponse(received, request.method === 'HEAD', true);
      if (response) finish(response);
      else reject(new Error(`connection closed before a complete response: ${JSON.stringify(received.toString('latin1').slice(0, 200))}`));
    });
    socket.on('error', reject);
  });
}

/** A complete response from `data`, or undefined while more bytes are needed. */
function parseResponse(data: Buffer, isHead: boolean, closed: boolean): RawResponse | undefined {
  const headerEnd = data.indexOf('\r\n\r\n');
  if (headerEnd < 0) return undefined;
  const [statusLine = '', ...headerLines] = data.subarray(0, headerEnd).toString('latin1').split('\r\n');
  const status = Number(statusLine.split(' ')[1]);
  const headers: Record<string, string> = {};
  for (const line of headerLines) {
    const colon = line.indexOf(':');
    const name = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1).trim();
    headers[name] = headers[name] === undefined ? value : `${headers[name]}, ${value}`;
  }
  const rest = data.subarray(headerEnd + 4);
  if (isHead || status === 204 || status === 304 || (status >= 100 && status < 200)) return { status, headers, body: '' };
  if (headers['transfer-encoding']?.toLowerCase().includes('chunked')) {
    const decoded = decodeChunked(rest);
    return decoded === undefined ? undefined : { status, headers, body: decoded };
  }
  const length = headers['content-length'];
  if (length !== undefined) {
    return rest.length >= Number(length) ? { status, headers, body: rest.subarray(0, Number(length)).toString('utf8') } : undefined;
  }
  return closed ? { status, headers, body: rest.toString('utf8') } : undefined;
}

function decodeChunked(data: Buffer): string | undefined {
  const parts: Buffer[] = [];
  let offset = 0;
  for (;;) {
    const lineEnd = data.indexOf('\r\n', offset);
    if (lineEnd < 0) return undefined;
    const size = parseInt(data.subarray(offset, lineEnd).toString('latin1'), 16);
    if (Number.isNaN(size)) throw new Error('malformed chunk size in the response');
    if (size === 0) return Buffer.concat(parts).toString('utf8');
    const start = lineEnd + 2;
    if (data.length < start + size + 2) return undefined;
    parts.push(data.subarray(start, start + size));
    offset = start + size + 2;
  }
}
