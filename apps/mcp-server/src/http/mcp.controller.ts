import { Controller, Delete, Get, Patch, Post, Put, Req, Res } from '@nestjs/common';
import { RouteConfig } from '@nestjs/platform-fastify';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { McpServerFactory } from '../mcp/mcp-server.factory.js';
import { McpSurface } from '../mcp/mcp-surface.js';
import { ModernServerFactory } from '../mcp/modern-server.factory.js';
import { jsonRpcErrorBody } from './boundary/access-policy.js';
import { newClientId } from './client-id.js';
import { JSON_RPC_ERRORS } from './mcp-error.filter.js';
import { isLegacyPost, webRequestOf } from './modern-exchange.js';
import { StatelessHttpTransport } from './stateless-http-transport.js';

/**
 * `POST /mcp` (C-MCP-8): stateless streamable HTTP — one `Server` and one transport per request, the body
 * Fastify already parsed, both closed when the response closes. Closing also aborts running handlers, so a
 * dropped connection cancels the command (C-MCP-9).
 */
@Controller('mcp')
export class McpController {
  constructor(
    private readonly factory: McpServerFactory,
    private readonly modern: ModernServerFactory,
    private readonly surface: McpSurface,
  ) {}

  @Post()
  @RouteConfig(JSON_RPC_ERRORS)
  async post(@Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const url = requestUrl(request);
    const sessionId = firstValue(request.headers['x-session-id']);
    reply.hijack();
    if (!isLegacyPost(request.headers, request.body)) {
      // MCP 2026-07-28 (C-MCP-12): the SDK's own stateless handler. Requests before a command start the sandbox.
      const method = requestMethodOf(request.body);
      if (method) this.surface.noticeProtocolRequest(sessionId, method);
      await this.modern.serve(webRequestOf(url, request.headers, reply.raw), request.body, reply.raw, method);
      return;
    }
    // The 2025 revisions: our transport straight onto Node's response (docs/benchmarks.md, "Protocol eras").
    const clientId = firstValue(request.headers['mcp-session-id']);
    const context = { sessionId, ...(clientId ? { clientId } : {}) };
    const server = this.factory.create(context);
    const transport = new StatelessHttpTransport(reply.raw, { issueClientId: newClientId });
    reply.raw.on('close', () => {
      // Answered in full: nothing of this POST runs any more, so its Server is left to the GC — closing it would
      // only build the SDK's "Connection closed" McpError, a stack capture per call (issue 11). A POST that closes
      // before its answer finished still closes both, which aborts its running handlers (C-MCP-9).
      if (reply.raw.writableFinished) return;
      void transport.close();
      void server.close();
    });
    await this.factory.connect(server, transport, context);
    transport.handle({ headers: request.headers, url, body: request.body });
  }

  // Stateless: no standalone SSE stream and no session to delete (stack-notes B.1; Go answered 405 too).
  @Get()
  get(@Res() reply: FastifyReply): void {
    methodNotAllowed(reply);
  }

  @Delete()
  delete(@Res() reply: FastifyReply): void {
    methodNotAllowed(reply);
  }

  @Put()
  put(@Res() reply: FastifyReply): void {
    methodNotAllowed(reply);
  }

  @Patch()
  patch(@Res() reply: FastifyReply): void {
    methodNotAllowed(reply);
  }
}

function methodNotAllowed(reply: FastifyReply): void {
  void reply.code(405).header('allow', 'POST').header('content-type', 'application/json').send(jsonRpcErrorBody('Method not allowed.'));
}

/** `requestInfo.url` for handlers; a Host header URL cannot hold (the guard let it through) falls back to loopback. */
function requestUrl(request: FastifyRequest): URL {
  try {
    return new URL(request.url, `http://${request.host}`);
  } catch {
    return new URL(request.url, 'http://localhost');
  }
}

/** The method of a single JSON-RPC request body (not a notification, not a batch). */
function requestMethodOf(body: unknown): string | undefined {
  const message = body as { method?: unknown; id?: unknown } | null;
  return typeof message?.method === 'string' && message.id !== undefined ? message.method : undefined;
}

function firstValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}
