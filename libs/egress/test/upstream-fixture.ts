import { createServer as createHttpServer, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { RuntimeCa } from '../src/runtime-ca.js';

/** What an upstream test server saw: the gateway's side of each request. */
export interface SeenRequest {
  readonly method: string;
  readonly url: string;
  readonly headers: IncomingHttpHeaders;
  readonly clientCertSubject?: string;
}

export interface Upstream {
  readonly port: number;
  readonly seen: SeenRequest[];
  close(): Promise<void>;
}

/**
 * Answers: `/redirect` → 302 to `https://elsewhere.test/`; `/watch` → a chunk every 20 ms until the client leaves;
 * `/big` → 64 KiB; anything else → 200 with a JSON echo of the path, Host and Authorization it received.
 */
function handler(seen: SeenRequest[]) {
  return (req: IncomingMessage, res: ServerResponse): void => {
    const peer = (req.socket as { getPeerCertificate?: () => { subject?: { CN?: string } } }).getPeerCertificate?.();
    seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, clientCertSubject: peer?.subject?.CN });
    req.resume();
    if (req.url === '/redirect') {
      res.writeHead(302, { location: 'https://elsewhere.test/stolen' });
      res.end();
      return;
    }
    if (req.url?.startsWith('/watch') || req.url?.includes('watch=true')) {
      res.writeHead(200, { 'content-type': 'application/json' });
      let n = 0;
      const timer = setInterval(() => res.write(`{"type":"ADDED","n":${n++}}\n`), 20);
      res.on('close', () => clearInterval(timer));
      return;
    }
    const body = JSON.stringify({ path: req.url, host: req.headers.host, authorization: req.headers.authorization ?? null });
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(body);
  };
}

async function listening(server: Server, seen: SeenRequest[]): Promise<Upstream> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    seen,
    close: () => new Promise((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}

/** An HTTPS upstream on 127.0.0.1 with a leaf from its own test CA for `names`; optionally asks for a client cert. */
export async function startHttpsUpstream(ca: RuntimeCa, names: string[], options: { clientCa?: string } = {}): Promise<Upstream> {
  const leaf = await ca.mintLeaf(names[0], false, 3_600_000);
  const seen: SeenRequest[] = [];
  const server = createHttpsServer({ cert: leaf.cert, key: leaf.key, ca: options.clientCa, requestCert: Boolean(options.clientCa), rejectUnauthorized: Boolean(options.clientCa) }, handler(seen));
  return listening(server, seen);
}

export async function startHttpUpstream(): Promise<Upstream> {
  const seen: SeenRequest[] = [];
  return listening(createHttpServer(handler(seen)), seen);
}

export { RuntimeCa };
