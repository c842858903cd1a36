import { createServer, STATUS_CODES, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { parseBearer } from '@cli-mcp/auth';
import type { AgentLog } from '../logging/agent-logger.js';
import type { AssignmentState } from '../state/assignment-state.js';
import { AGENT_MAX_BODY_BYTES, AgentError, AgentErrorCode } from '@cli-mcp/agent-client';
import { allowHeaderOf, type AgentReply, type RouteTable } from './agent-route.js';
import { readBody } from './request-body.js';

export interface AgentHttpDeps {
  routes: RouteTable;
  assignment: AssignmentState;
  /** True once SIGTERM arrived: every new request is 503 `agent shutting down` (C-AG-10). */
  stopping: () => boolean;
  log: AgentLog;
}

const EMPTY = Buffer.alloc(0);

/**
 * The agent's HTTP server: Node's own, with a five-route table — no framework on the hot route (issue 11: Nest +
 * Fastify were two thirds of the agent's start time and a third of its memory; docs/agent.md, "HTTP layer").
 * Per request, in the order C-AG-1 fixes: shutting down → 503; unknown path → 404; other method → 405 + Allow;
 * the matched route's bearer check (503 unassigned, 401, 401) before the body is read; the body (413 over
 * 1 MiB); the handler. No request or socket timeout: a command may run for the max timeout (C-AG-14);
 * idle keep-alive connections close after 60 s, like the Go agent's.
 */
export function createAgentHttpServer(deps: AgentHttpDeps): Server {
  const server = createServer({ requestTimeout: 0, keepAliveTimeout: 60_000 }, (request, response) => void serve(deps, request, response));
  server.timeout = 0;
  server.on('clientError', answerUnparseable);
  return server;
}

/** What Node's HTTP parser refused (no route ran) still gets the JSON envelope (C-AG-1), then the connection closes. */
function answerUnparseable(error: NodeJS.ErrnoException, socket: Duplex): void {
  if (error.code === 'ECONNRESET' || !socket.writable) {
    socket.destroy();
    return;
  }
  const refused = new AgentError(error.code === 'HPE_HEADER_OVERFLOW' ? AgentErrorCode.HeadersTooLarge : AgentErrorCode.MalformedRequest);
  const text = JSON.stringify(errorBody(refused));
  socket.end(
    `HTTP/1.1 ${refused.status ?? 400} ${STATUS_CODES[refused.status ?? 400]}\r\ncontent-type: application/json; charset=utf-8\r\n` +
      `content-length: ${Buffer.byteLength(text)}\r\nconnection: close\r\n\r\n${text}`,
  );
}

async function serve(deps: AgentHttpDeps, request: IncomingMessage, response: ServerResponse): Promise<void> {
  let reply: AgentReply;
  try {
    reply = await dispatch(deps, request, response);
  } catch (error) {
    reply = errorReply(error, deps.log);
  }
  send(response, reply, deps.stopping());
}

async function dispatch(deps: AgentHttpDeps, request: IncomingMessage, response: ServerResponse): Promise<AgentReply> {
  if (deps.stopping()) throw new AgentError(AgentErrorCode.ShuttingDown);
  const route = deps.routes.get(pathOf(request.url ?? ''));
  if (!route) throw new AgentError(AgentErrorCode.NotFound);
  if (request.method !== route.method && !(route.method === 'GET' && request.method === 'HEAD')) {
    return { ...errorReply(new AgentError(AgentErrorCode.MethodNotAllowed), deps.log), headers: { allow: allowHeaderOf(route) } };
  }
  if (route.bearer) {
    const denied = bearerError(deps.assignment, request.headers.authorization);
    if (denied) throw denied;
  }
  const body = route.method === 'POST' ? await readBody(request, AGENT_MAX_BODY_BYTES) : EMPTY;
  return route.handle({ body, clientGone: clientGone(request, response) });
}

/** C-AG-1 order: unassigned → 503, missing or malformed bearer → 401, wrong token (constant time) → 401. */
function bearerError(assignment: AssignmentState, header: string | undefined): AgentError | undefined {
  if (!assignment.assigned) return new AgentError(AgentErrorCode.NotAssigned);
  const token = parseBearer(header);
  if (token === undefined) return new AgentError(AgentErrorCode.MissingAuthorization);
  if (!assignment.accepts(token)) return new AgentError(AgentErrorCode.Unauthorized);
  return undefined;
}

/**
 * Aborted when the response closes before it was written: the client left (C-AG-4). A socket already gone
 * (closed while the body was read) counts too.
 */
function clientGone(request: IncomingMessage, response: ServerResponse): AbortSignal {
  const gone = new AbortController();
  if (request.socket.destroyed) gone.abort();
  else response.once('close', () => response.writableFinished || gone.abort());
  return gone.signal;
}

/** Every failure leaves as `{"error": "<message>", "code": "<code>"}` with the contract's status and text — never a stack trace. */
function errorReply(error: unknown, log: AgentLog): AgentReply {
  if (error instanceof AgentError) {
    // The rest of a refused body is not worth reading: the connection closes after the answer.
    return { status: error.status ?? 500, body: errorBody(error), ...(error.code === AgentErrorCode.BodyTooLarge ? { headers: { connection: 'close' } } : {}) };
  }
  log.error({ err: error instanceof Error ? { name: error.name, message: error.message } : { message: String(error) } }, 'unexpected error in request');
  const internal = new AgentError(AgentErrorCode.Internal);
  return { status: internal.status ?? 500, body: errorBody(internal) };
}

/** C-AG-15: the code is what callers decide on; the text is for humans. */
function errorBody(error: AgentError): { error: string; code: string } {
  return { error: error.message, code: error.code };
}

function send(response: ServerResponse, reply: AgentReply, stopping: boolean): void {
  if (response.headersSent || response.destroyed) return;
  const text = JSON.stringify(reply.body);
  response.writeHead(reply.status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(text),
    ...reply.headers,
    // While draining, keep-alive connections close after their answer so the server can finish (C-AG-10).
    ...(stopping ? { connection: 'close' } : {}),
  });
  response.end(text);
}

function pathOf(target: string): string {
  const query = target.indexOf('?');
  return query < 0 ? target : target.slice(0, query);
}
