import { Catch, HttpException, type ArgumentsHost } from '@nestjs/common';
import { BaseExceptionFilter } from '@nestjs/core';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { jsonRpcErrorBody } from './boundary/access-policy.js';
import { AccessRefusedException } from './boundary/access-refused.exception.js';
import { HTTP_BODY_LIMIT_BYTES } from './body-limit.js';

/** Fastify route config of routes whose errors take the JSON-RPC shape (set with `@RouteConfig`). */
export const JSON_RPC_ERRORS = { jsonRpcErrors: true } as const;

/**
 * The HTTP error answers:
 * - boundary refusals (C-HTTP-5, C-MCP-8) on any route: their status and headers, a JSON-RPC error body;
 * - errors before or around `POST /mcp` (malformed JSON, body over the limit) in the JSON-RPC shape MCP clients
 *   parse — `-32700` parse error, `-32600` invalid request — instead of Nest's `{statusCode, message}`. Which
 *   route that is comes from the route the router matched (its config), not from the request target.
 * Other routes keep Nest's default handling.
 */
@Catch()
export class McpErrorFilter extends BaseExceptionFilter {
  override catch(exception: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    const request = http.getRequest<FastifyRequest>();
    const reply = http.getResponse<FastifyReply>();
    if (exception instanceof AccessRefusedException) {
      const { status, message, headers } = exception.refusal;
      void reply.code(status).headers({ 'content-type': 'application/json', ...headers }).send(jsonRpcErrorBody(message));
      return;
    }
    if ((request.routeOptions.config as { jsonRpcErrors?: boolean } | undefined)?.jsonRpcErrors !== true) {
      super.catch(exception, host);
      return;
    }
    if (reply.sent || reply.raw.headersSent) return; // the MCP transport owns a hijacked reply
    const status = statusOf(exception);
    const [code, message] =
      status === 400
        ? [-32700, `Parse error: ${exception instanceof Error ? exception.message : 'invalid JSON'}`]
        : status === 413
          ? [-32600, `Request body too large (limit ${HTTP_BODY_LIMIT_BYTES} bytes)`]
          : status < 500
            ? [-32600, exception instanceof Error ? exception.message : 'Invalid request']
            : [-32603, 'Internal error'];
    void reply.code(status).header('content-type', 'application/json').send(jsonRpcErrorBody(message, code));
  }
}

function statusOf(exception: unknown): number {
  if (exception instanceof HttpException) return exception.getStatus();
  const status = (exception as { statusCode?: unknown } | undefined)?.statusCode;
  return typeof status === 'number' && status >= 400 && status < 600 ? status : 500;
}
