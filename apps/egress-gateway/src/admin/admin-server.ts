import { createServer, type Server } from 'node:http';
import type { Registry } from 'prom-client';

/** Why the gateway is not ready, or an empty list when it is. */
export type ReadinessCheck = () => readonly string[];

/**
 * The admin listener: `/healthz` (the process answers), `/readyz` (200 only when the gateway can attribute and serve
 * — CA loaded, routes loaded, pod informer synced and live, sandbox ConfigMap published — else 503 with the reasons
 * as JSON), `/metrics` (Prometheus text of the process's registry). Node's own HTTP server: three fixed routes do
 * not need a framework (the agent's choice too, docs/agent.md).
 */
export function createAdminServer(registry: Registry, notReady: ReadinessCheck): Server {
  const server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    const json = (status: number, body: unknown): void => {
      const text = JSON.stringify(body);
      res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) }).end(text);
    };
    if (req.method !== 'GET' && req.method !== 'HEAD') return json(405, { error: 'method not allowed' });
    if (path === '/healthz') return json(200, { status: 'ok' });
    if (path === '/readyz') {
      const reasons = notReady();
      return reasons.length === 0 ? json(200, { status: 'ready' }) : json(503, { status: 'not ready', reasons });
    }
    if (path === '/metrics') {
      registry.metrics().then(
        (text) => res.writeHead(200, { 'content-type': registry.contentType }).end(text),
        (error: unknown) => json(500, { error: error instanceof Error ? error.message : String(error) }),
      );
      return;
    }
    json(404, { error: 'not found', paths: ['/healthz', '/readyz', '/metrics'] });
  });
  server.keepAliveTimeout = 5000;
  return server;
}
