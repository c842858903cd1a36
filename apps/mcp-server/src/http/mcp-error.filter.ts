import { Catch, HttpException, type ArgumentsHost } from '@nestjs/common';
import { BaseExceptionFilter } from '@nestjs/core';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { HTTP_BODY_LIMIT_BYTES } from './body-limit.js';
import { pathOf } from './install-http-hooks.js';

/**
 * Errors before or around `POST /mcp` (malformed JSON, body over the limit) answered in the JSON-RPC shape MCP
 * clients parse — `-32700` parse error, `-32600` invalid request — instead of Nest's `{statusCode, message}`.
 * Other routes keep Nest's default handling.
 */
@Catch()
export class McpErrorFilter extends BaseExceptionFilter {
  override catch(exception: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    const request = http.getRequest<FastifyRequest>();
    const reply = http.getResponse<FastifyReply>();
    if (pathOf(request.url) !== '/mcp') {
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
    void reply.code(status).header('content-type', 'application/json').send(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }));
  }
}

function statusOf(exception: unknown): number {
  if (exception instanceof HttpException) return exception.getStatus();
  const status = (exception as { statusCode?: unknown } | undefined)?.statusCode;
  return typeof status === 'number' && status >= 400 && status < 600 ? status : 500;
}
