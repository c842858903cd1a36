import { Catch, HttpException, type ArgumentsHost, type ExceptionFilter } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AgentLog } from '../logging/agent-logger.js';
import { AgentError, AgentErrorCode } from './agent-error.js';

/** Paths the agent serves and their methods: an unknown method on a known path is 405, not 404. */
const ROUTES: Readonly<Record<string, string>> = {
  '/exec': 'POST',
  '/assign': 'POST',
  '/cancel': 'POST',
  '/health': 'GET, HEAD',
};

/**
 * Every failure leaves as `{"error": "<message>"}` with the contract's status and text — never a stack trace,
 * never Fastify's or Nest's default shapes (C-AG-1). Fastify's body errors reach here as HttpExceptions whose
 * cause carries the FST_ code.
 */
@Catch()
export class AgentExceptionFilter implements ExceptionFilter {
  constructor(private readonly log: AgentLog) {}

  catch(exception: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    const reply = http.getResponse<FastifyReply>();
    const request = http.getRequest<FastifyRequest>();
    const error = this.toAgentError(exception, request);
    if (error.code === AgentErrorCode.MethodNotAllowed) {
      reply.header('allow', ROUTES[pathOf(request.url)] ?? '');
    }
    void reply.status(error.status).header('content-type', 'application/json; charset=utf-8').send({ error: error.message });
  }

  private toAgentError(exception: unknown, request: FastifyRequest): AgentError {
    if (exception instanceof AgentError) return exception;
    if (exception instanceof HttpException) {
      const status = exception.getStatus();
      const code = (exception.cause as { code?: string } | undefined)?.code;
      if (status === 404 && code === undefined) {
        return ROUTES[pathOf(request.url)] !== undefined
          ? new AgentError(AgentErrorCode.MethodNotAllowed)
          : new AgentError(AgentErrorCode.NotFound);
      }
      if (status === 413 || code === 'FST_ERR_CTP_BODY_TOO_LARGE') return new AgentError(AgentErrorCode.BodyTooLarge);
      if (status >= 400 && status < 500) return new AgentError(AgentErrorCode.InvalidBody);
    }
    this.log.error({ err: describe(exception) }, 'unexpected error in request');
    return new AgentError(AgentErrorCode.Internal);
  }
}

function pathOf(url: string): string {
  const query = url.indexOf('?');
  return query < 0 ? url : url.slice(0, query);
}

function describe(exception: unknown): { name?: string; message?: string } {
  return exception instanceof Error ? { name: exception.name, message: exception.message } : { message: String(exception) };
}
