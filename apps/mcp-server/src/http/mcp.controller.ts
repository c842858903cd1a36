import { Controller, Delete, Get, Patch, Post, Put, Req, Res } from '@nestjs/common';
import { RouteConfig } from '@nestjs/platform-fastify';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { McpServerFactory } from '../mcp/mcp-server.factory.js';
import { jsonRpcErrorBody } from './boundary/access-policy.js';
import { newClientId } from './client-id.js';
import { JSON_RPC_ERRORS } from './mcp-error.filter.js';
import { StatelessHttpTransport } from './stateless-http-transport.js';

/**
 * `POST /mcp` (C-MCP-8): stateless streamable HTTP — one `Server` and one transport per request, the body
 * Fastify already parsed, both closed when the response closes. Closing also aborts running handlers, so a
 * dropped connection cancels the command (C-MCP-9).
 */
@Controller('mcp')
export class McpController {
  constructor(private readonly factory: McpServerFactory) {}

  @Post()
  @RouteConfig(JSON_RPC_ERRORS)
  async post(@Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const clientId = firstValue(request.headers['mcp-session-id']);
    const context = { sessionId: firstValue(request.headers['x-session-id']), ...(clientId ? { clientId } : {}) };
    const server = this.factory.create(context);
    const transport = new StatelessHttpTransport(reply.raw, { issueClientId: newClientId });
    reply.raw.on('close', () => {
      void transport.close();
      void server.close();
    });
    await this.factory.connect(server, transport, context);
    reply.hijack();
    transport.handle({ headers: request.headers, url: requestUrl(request), body: request.body });
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

function firstValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}
