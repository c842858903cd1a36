import { createServer, type Server, type ServerResponse } from 'node:http';

/** What an admin route answers: JSON, or text with its own content type (Prometheus). */
export type AdminAnswer =
  | { readonly status: number; readonly json: unknown }
  | { readonly status: number; readonly text: string; readonly contentType: string };

/** One fixed GET route of an admin listener. */
export type AdminRoute = () => AdminAnswer | Promise<AdminAnswer>;

/** A source of Prometheus text: prom-client's `Registry` fits. */
export interface MetricsSource {
  readonly contentType: string;
  metrics(): Promise<string>;
}

/** An admin listener, and the switch that makes it answer 503 while its process shuts down. */
export interface AdminServer {
  readonly server: Server;
  /** From now on every route answers 503 `shutting down` and closes its connection; idle keep-alives are closed. */
  beginShutdown(): void;
}

/**
 * The probe and metrics listener of the processes without an MCP surface: the sandbox controller and operator
 * (`/live`, `/health`, `/metrics`, C-CTL-8) and the egress gateway (`/healthz`, `/readyz`, `/metrics`). A handful of
 * fixed GET routes need no framework: Node's own HTTP server keeps these processes free of Nest, Fastify and
 * Terminus, about 28 MB of idle RSS on Node 24 (issue 22 item 6, docs/benchmarks.md). Routes match the path
 * exactly, the query ignored; any other method is 405, any other path 404 with the list of paths.
 */
export function createAdminServer(routes: Readonly<Record<string, AdminRoute>>): AdminServer {
  let closing = false;
  const server = createServer((req, res) => {
    if (closing) return send(res, { status: 503, json: { status: 'shutting down' } }, true);
    if (req.method !== 'GET' && req.method !== 'HEAD') return send(res, { status: 405, json: { error: 'method not allowed', allowed: ['GET', 'HEAD'] } });
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    const route = Object.hasOwn(routes, path) ? routes[path] : undefined;
    if (!route) return send(res, { status: 404, json: { error: 'not found', paths: Object.keys(routes) } });
    Promise.resolve()
      .then(route)
      .then(
        (answer) => send(res, answer),
        (error: unknown) => send(res, { status: 500, json: { error: error instanceof Error ? error.message : String(error) } }),
      );
  });
  // Probes reconnect every few seconds; an idle keep-alive beyond that only holds a socket.
  server.keepAliveTimeout = 5000;
  return {
    server,
    beginShutdown: () => {
      closing = true;
      server.closeIdleConnections();
    },
  };
}

/** `/metrics` of a prom-client registry. */
export function metricsRoute(registry: MetricsSource): AdminRoute {
  return async () => ({ status: 200, text: await registry.metrics(), contentType: registry.contentType });
}

function send(res: ServerResponse, answer: AdminAnswer, close = false): void {
  const [body, contentType] = 'json' in answer ? [JSON.stringify(answer.json), 'application/json'] : [answer.text, answer.contentType];
  res.writeHead(answer.status, { 'content-type': contentType, 'content-length': Buffer.byteLength(body), ...(close ? { connection: 'close' } : {}) });
  res.end(body);
}
