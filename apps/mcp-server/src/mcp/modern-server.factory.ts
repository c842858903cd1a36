import { createMcpHandler, Server, type McpHttpHandler, type Tool } from '@modelcontextprotocol/server';
import type { ServerResponse } from 'node:http';
import { Inject, Injectable, type OnApplicationShutdown } from '@nestjs/common';
import type { Logger } from 'pino';
import type { ServerConfig } from '../config/server-config.js';
import { serveModernPost } from '../http/modern-exchange.js';
import { SERVER_NAME } from '../metrics/mcp-metrics.js';
import { MetricsService } from '../metrics/metrics.service.js';
import { APP_LOGGER, SERVER_CONFIG } from '../tokens.js';
import { BASH_TOOL_NAME, bashToolDefinition } from './bash-tool.definition.js';
import { BashToolService } from './bash-tool.service.js';
import type { SendProgress } from './progress-reporter.js';
import { ProtocolError } from './protocol-error.js';

/** Methods of 2026-07-28 that the SDK's handler answers without calling one of ours (the era has no `ping`). */
const SDK_ANSWERED = new Set(['server/discover']);

/**
 * MCP 2026-07-28 (C-MCP-12) through the SDK's v2 line: `createMcpHandler` owns the modern wire — `server/discover`,
 * the per-request `_meta` envelope, routing headers, the stateless exchange — and builds one low-level v2 `Server`
 * per request from this factory. The tool is the same `bash` (definition, checks, rendering: BashToolService).
 * Cancellation is the closing of the request's stream (2026-07-28 "Transport-Specific Cancellation"), which
 * aborts the handler's signal; no cross-replica cancel is needed, the stream is on this replica.
 */
@Injectable()
export class ModernServerFactory implements OnApplicationShutdown {
  private readonly tool: Tool;
  readonly handler: McpHttpHandler;

  constructor(
    @Inject(SERVER_CONFIG) private readonly config: ServerConfig,
    @Inject(APP_LOGGER) private readonly logger: Logger,
    private readonly bash: BashToolService,
    private readonly metrics: MetricsService,
  ) {
    this.tool = bashToolDefinition(config.tool.defaultTimeoutSeconds, config.tool.maxTimeoutSeconds) as Tool;
    // Era routing is the caller's (isLegacyRequest): this handler only ever sees modern requests.
    this.handler = createMcpHandler(({ requestInfo }) => this.create(requestInfo?.headers.get('x-session-id') ?? undefined), {
      legacy: 'reject',
    });
  }

  /**
   * One v2 `Server` for `sessionId`: per modern HTTP request, or per stdio connection of either era (`serveStdio`
   * decides the era; `logging` is declared to 2025-era clients as C-MCP-1 says, 2026-07-28 deprecates it).
   */
  create(sessionId: string | undefined, era: 'legacy' | 'modern' = 'modern'): Server {
    const server = new Server(
      { name: SERVER_NAME, version: this.config.version },
      { capabilities: era === 'legacy' ? { tools: {}, logging: {} } : { tools: {} }, instructions: this.config.tool.instructions },
    );
    server.setRequestHandler('tools/list', () => {
      this.metrics.mcp.observe('tools/list', undefined, true, 0);
      return { tools: [this.tool] };
    });
    server.setRequestHandler('tools/call', async (request, ctx) => {
      const { name, arguments: args } = request.params;
      const started = performance.now();
      let success = false;
      try {
        if (name !== BASH_TOOL_NAME) throw ProtocolError.invalidParams(`unknown tool ${JSON.stringify(name)}`);
        const sendNotification: SendProgress = (notification) => ctx.mcpReq.notify(notification);
        const result = await this.bash.call(args, {
          sessionId,
          requestId: ctx.mcpReq.id,
          progressToken: ctx.mcpReq._meta?.progressToken,
          signal: ctx.mcpReq.signal,
          sendNotification,
        });
        success = result.isError !== true;
        return result;
      } catch (error) {
        throw error instanceof ProtocolError ? toSdkError(error) : error;
      } finally {
        // Go §11 metrics for this era too (server/discover, which the SDK answers itself: serve()).
        this.metrics.mcp.observe('tools/call', name, success, (performance.now() - started) / 1000);
      }
    });
    server.onerror = (error) => this.logger.debug({ err: error.message }, 'mcp protocol error (2026-07-28)');
    return server;
  }

  /**
   * Serves one modern POST. The SDK answers `server/discover` itself, so no handler of ours sees it: it is
   * metered here, from the HTTP status of the answer (Go §11 metrics for every method, either era).
   */
  async serve(request: Request, body: unknown, res: ServerResponse, method: string | undefined): Promise<void> {
    const started = performance.now();
    const status = await serveModernPost(this.handler, request, body, res);
    if (method !== undefined && SDK_ANSWERED.has(method)) this.metrics.mcp.observe(method, undefined, status === 200, (performance.now() - started) / 1000);
  }

  async onApplicationShutdown(): Promise<void> {
    await this.handler.close();
  }
}

/** Our exact-message JSON-RPC error as the v2 SDK's error type, so its code and message go out unchanged. */
function toSdkError(error: ProtocolError): Error {
  return Object.assign(new Error(error.message), { code: error.code });
}
