import { request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import { EgressError, toEgressError } from './errors.js';
import { downstreamHeaders, upstreamHeaders } from './headers.js';
import { checkKubePath } from './kube-path.js';
import { refuseResponse, type ConnectionContext, type Recorder } from './record.js';
import type { RouteLabel } from './routes.js';
import type { Destination, UpstreamPool } from './upstream.js';

/** What a forwarded request needs besides itself: whose it is and where it may go. */
export interface ForwardTarget {
  readonly context: ConnectionContext;
  readonly destination: Destination;
  /** Refuses the request when the session was revoked after its tunnel opened (C-EGR-6). */
  readonly isRevoked: () => boolean;
}

/** Hides the query: the audit never records it (tokens and selectors travel there). */
export function pathOf(url: string): string {
  const cut = url.search(/[?#]/);
  return cut < 0 ? url : url.slice(0, cut);
}

/**
 * Forwards one request to the checked address, streaming both bodies (C-EGR-4/5): no buffering, so watch and log
 * streams flow as they come; a 3xx goes back unchanged and is never followed — the client's next request to the
 * `Location` is checked like any other. On Kubernetes routes the path is checked, identity headers are stripped
 * and the route's credential is injected.
 */
export function forward(req: IncomingMessage, res: ServerResponse, path: string, target: ForwardTarget, pool: UpstreamPool, recorder: Recorder): void {
  const started = performance.now();
  const { route } = target.destination;
  const label: RouteLabel = route.kind;
  let injected = false;
  let bytes = 0;
  let headersAt: number | undefined;
  let recorded = false;
  const record = (status: number, reason: string): void => {
    if (recorded) return;
    recorded = true;
    recorder.record(target.context, started, { method: req.method ?? '', host: route.target.key, path: pathOf(path), status, bytes, reason, route: label, credentialInjected: injected }, headersAt);
  };
  const refuse = (error: EgressError): void => {
    record(error.status, error.code);
    refuseResponse(res, error);
  };
  try {
    if (target.isRevoked()) throw new EgressError('session_revoked', 'this session has ended; its egress is closed');
    const kube = route.kind === 'kubernetes';
    if (kube) checkKubePath(pathOf(path));
    const defaultPort = target.destination.tls ? 443 : 80;
    const hostHeader = route.target.port === defaultPort ? bracketed(route) : route.target.key;
    const headers = upstreamHeaders(req.headers, hostHeader, kube);
    if (route.kind === 'kubernetes') {
      if ('token' in route.credential) headers.authorization = `Bearer ${route.credential.token}`;
      else if (!route.credential.cert) throw new EgressError('credential_missing', `no credential for ${route.target.key}`);
      injected = true;
    }
    const upstream = httpRequest({ agent: pool.agent(target.destination), method: req.method, path, headers, setHost: false });
    upstream.on('response', (upRes) => {
      headersAt = performance.now();
      res.writeHead(upRes.statusCode ?? 502, downstreamHeaders(upRes.headers));
      upRes.on('data', (chunk: Buffer) => (bytes += chunk.length));
      upRes.pipe(res);
      upRes.on('end', () => record(upRes.statusCode ?? 502, 'ok'));
      upRes.on('error', () => res.destroy());
    });
    upstream.on('error', (error) => {
      if (res.headersSent) {
        record(res.statusCode, 'upstream_failed');
        res.destroy();
      } else refuse(toEgressError(error));
    });
    // The client went away (or the tunnel was revoked): the upstream request and its stream end too.
    res.on('close', () => {
      if (headersAt !== undefined) record(res.statusCode, 'ok');
      if (!upstream.writableFinished || !res.writableFinished) upstream.destroy();
    });
    req.pipe(upstream);
  } catch (error) {
    refuse(toEgressError(error));
  }
}

function bracketed(route: Destination['route']): string {
  return route.target.ip === 6 ? `[${route.target.host}]` : route.target.host;
}
