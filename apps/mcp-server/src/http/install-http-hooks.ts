import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import { guardRequest, jsonRpcErrorBody, type GuardPolicy } from './request-guard.js';

/**
 * Fastify hooks of the HTTP transport: the request guard (host, origin, bearer, drain) before any route, and one
 * structured log line per request on stderr — method, path without query, status, duration; never headers.
 */
export function installHttpHooks(fastify: FastifyInstance, policy: GuardPolicy, logger: Logger): void {
  const log = logger.child({ component: 'http' });
  const started = new WeakMap<object, number>();
  fastify.addHook('onRequest', async (request) => {
    started.set(request.raw, performance.now());
  });
  fastify.addHook('onRequest', async (request, reply) => {
    const rejection = guardRequest({ path: pathOf(request.url), headers: request.headers }, policy);
    if (!rejection) return;
    log.warn({ method: request.method, path: pathOf(request.url), status: rejection.status, reason: rejection.message.split(':')[0] }, 'request refused');
    await reply
      .code(rejection.status)
      .headers({ 'content-type': 'application/json', ...rejection.headers })
      .send(jsonRpcErrorBody(rejection.message));
  });
  fastify.addHook('onResponse', async (request, reply) => {
    logRequest(log, request.method, request.url, reply.statusCode, started.get(request.raw));
  });
}

/** Logs a finished request; also used by the MCP controller for its hijacked replies. */
export function logRequest(log: Logger, method: string, url: string, status: number, started: number | undefined): void {
  const durationMs = started === undefined ? undefined : Math.round(performance.now() - started);
  log.info({ method, path: pathOf(url), status, duration_ms: durationMs }, 'http request');
}

export function pathOf(url: string): string {
  const query = url.indexOf('?');
  return query < 0 ? url : url.slice(0, query);
}
