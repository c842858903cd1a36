import { createMcpHandler, Server, type McpHttpHandler, type Tool } from '@modelcontextprotocol/server';
import type { ServerResponse } from 'node:http';
import { Inject, Injectable, type OnApplicationShutdown } from '@nestjs/common';
import type { Logger } from 'pino';
import { serveModernPost } from '../http/modern-exchange.js';
import { APP_LOGGER } from '../tokens.js';
import { McpSurface, type McpEra } from './mcp-surface.js';
import type { SendProgress } from './progress-reporter.js';
import { ProtocolError } from './protocol-error.js';

/** Methods of 2026-07-28 that the SDK's handler answers without calling one of ours (the era has no `ping`). */
const SDK_ANSWERED = new Set(['server/discover']);

/**
 * The SDK v2 adapter of the one surface (McpSurface): HTTP 2026-07-28 (C-MCP-12) through `createMcpHandler`,
 * which owns the modern wire — `server/discover`, the per-request `_meta` envelope, routing headers, the
 * stateless exchange — and stdio of either era. Its handlers only translate SDK v2 requests into surface calls.
 * Cancellation: in modern HTTP the closing of the request's stream aborts the handler's signal (2026-07-28
 * "Transport-Specific Cancellation"); on stdio the one connection's server maps `notifications/cancelled` itself.
 */
@Injectable()
export class ModernServerFactory implements OnApplicationShutdown {
  readonly handler: McpHttpHandler;

  constructor(
    private readonly surface: McpSurface,
    @Inject(APP_LOGGER) private readonly logger: Logger,
  ) {
    // Era routing is the caller's (isLegacyRequest): this handler only ever sees modern requests.
    this.handler = createMcpHandler(({ requestInfo }) => this.create(requestInfo?.headers.get('x-session-id') ?? undefined), {
      legacy: 'reject',
    });
  }

  /** One v2 `Server` for `sessionId`: per modern HTTP request, or per stdio connection of either era (`serveStdio` decides). */
  create(sessionId: string | undefined, era: McpEra = 'modern'): Server {
    const { surface } = this;
    const server = new Server(surface.info, { capabilities: surface.capabilities(era), instructions: surface.instructions });
    server.setRequestHandler('tools/list', () => surface.listTools(sessionId) as { tools: Tool[] });
    server.setRequestHandler('tools/call', async (request, ctx) => {
      const sendNotification: SendProgress = (notification) => ctx.mcpReq.notify(notification);
      try {
        return await surface.callTool(request.params.name, request.params.arguments, {
          sessionId,
          requestId: ctx.mcpReq.id,
          progressToken: ctx.mcpReq._meta?.progressToken,
          signal: ctx.mcpReq.signal,
          sendNotification,
        });
      } catch (error) {
        throw error instanceof ProtocolError ? toSdkError(error) : error;
      }
    });
    server.onerror = (error) => this.logger.debug({ err: error.message }, `mcp protocol error (${era})`);
    return server;
  }

  /**
   * Serves one modern POST. The SDK answers `server/discover` itself, so no handler of ours sees it: it is
   * reported to the surface here, from the HTTP status of the answer.
   */
  async serve(request: Request, body: unknown, res: ServerResponse, method: string | undefined): Promise<void> {
    const started = performance.now();
    const status = await serveModernPost(this.handler, request, body, res);
    if (method !== undefined && SDK_ANSWERED.has(method)) this.surface.observeProtocol(method, undefined, status === 200, (performance.now() - started) / 1000);
  }

  async onApplicationShutdown(): Promise<void> {
    await this.handler.close();
  }
}

/** Our exact-message JSON-RPC error as the v2 SDK's error type, so its code and message go out unchanged. */
function toSdkError(error: ProtocolError): Error {
  return Object.assign(new Error(error.message), { code: error.code });
}
