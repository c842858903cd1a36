import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import { chosenFieldsLogger } from '@cli-mcp/common';

/**
 * One structured log line per request on stderr — method, path without query, status, duration; never headers.
 * Those four fields are chosen here, so the record skips pino's redaction walk (issue 11). Logging only: access is
 * decided by the boundary guard on the matched route (C-HTTP-5).
 */
export function installRequestLogging(fastify: FastifyInstance, logger: Logger): void {
  const log = chosenFieldsLogger(logger, { component: 'http' });
  const started = new WeakMap<object, number>();
  fastify.addHook('onRequest', async (request) => {
    started.set(request.raw, performance.now());
  });
  fastify.addHook('onResponse', async (request, reply) => {
    logRequest(log, request.method, request.url, reply.statusCode, started.get(request.raw));
  });
}

function logRequest(log: Logger, method: string, url: string, status: number, started: number | undefined): void {
  const durationMs = started === undefined ? undefined : Math.round(performance.now() - started);
  log.info({ method, path: pathOf(url), status, duration_ms: durationMs }, 'http request');
}

function pathOf(url: string): string {
  const query = url.indexOf('?');
  return query < 0 ? url : url.slice(0, query);
}
