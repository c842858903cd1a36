import { parseBearer } from '@cli-mcp/auth';
import type { FastifyInstance } from 'fastify';
import type { AssignmentState } from '../state/assignment-state.js';
import { AgentError, AgentErrorCode } from './agent-error.js';

/** Routes behind the bearer token. `/assign` is unauthenticated by design (C-AG-2), `/health` is open (C-AG-3). */
const PROTECTED = new Set(['/exec', '/cancel', '/output']);

/**
 * C-AG-1 order: unassigned → 503, missing/malformed bearer → 401, wrong token → 401 — all before the body is read,
 * so an onRequest hook (Fastify parses bodies before any Nest guard runs). Size (413) and JSON (400) follow in
 * body parsing, the empty command (400) in the controller.
 */
export function installAuthHook(fastify: FastifyInstance, assignment: AssignmentState, closing: () => boolean): void {
  fastify.addHook('onRequest', (request, reply, done) => {
    // During shutdown new requests get our envelope, not Fastify's own 503 body (return503OnClosing is off).
    let error = closing() ? new AgentError(AgentErrorCode.ShuttingDown) : undefined;
    if (!error && request.method === 'POST' && PROTECTED.has(request.routeOptions.url ?? '')) {
      error = authError(assignment, request.headers.authorization);
    }
    if (!error) {
      done();
      return;
    }
    void reply.status(error.status).header('content-type', 'application/json; charset=utf-8').send({ error: error.message });
  });
}

function authError(assignment: AssignmentState, header: string | undefined): AgentError | undefined {
  if (!assignment.assigned) return new AgentError(AgentErrorCode.NotAssigned);
  const token = parseBearer(header);
  if (token === undefined) return new AgentError(AgentErrorCode.MissingAuthorization);
  if (!assignment.accepts(token)) return new AgentError(AgentErrorCode.Unauthorized);
  return undefined;
}

/**
 * The agent reads every body as raw bytes (any Content-Type, like the Go agent) up to the 1 MiB limit and decodes
 * JSON itself (request-bodies.ts), so the error for each case is exact.
 */
export function installRawBodyParser(fastify: FastifyInstance, bodyLimit: number): void {
  fastify.removeAllContentTypeParsers();
  fastify.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit }, (_request, body, done) => done(null, body));
}
