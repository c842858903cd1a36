// The low-level Server (marked deprecated in favour of McpServer): `McpServer.registerTool` turns argument
// validation failures into `isError` results, while the contract wants JSON-RPC errors (C-MCP-4).
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv-provider.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { CallToolRequestSchema, CancelledNotificationSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { Inject, Injectable } from '@nestjs/common';
import type { Logger } from 'pino';
import { MeteredTransport } from '../metrics/metered-transport.js';
import { APP_LOGGER } from '../tokens.js';
import { McpSurface } from './mcp-surface.js';

/** What a server instance knows about its caller. HTTP: one per POST; stdio: one per process. */
export interface McpRequestContext {
  /** `X-Session-ID` (HTTP) or the configured stdio session. */
  readonly sessionId: string | undefined;
  /** HTTP: the client id the server issued at `initialize`, echoed as `Mcp-Session-Id` (C-MCP-9). */
  readonly clientId?: string;
}

/**
 * The SDK v1 adapter of the one surface (McpSurface), for HTTP 2025 (C-MCP-1/2): one `Server` per POST whose
 * handlers only translate SDK v1 requests into surface calls. `initialize` and `ping` never reach the session
 * layer (C-MCP-7).
 */
@Injectable()
export class McpServerFactory {
  /**
   * One validator for every per-request Server: the SDK otherwise builds a new Ajv instance per Server, which
   * cost about 1 ms of CPU on every stateless POST (bench/server.bench.mjs).
   */
  private readonly validator = new AjvJsonSchemaValidator();

  constructor(
    private readonly surface: McpSurface,
    @Inject(APP_LOGGER) private readonly logger: Logger,
  ) {}

  create(context: McpRequestContext): Server {
    const { surface } = this;
    const server = new Server(surface.info, {
      capabilities: surface.capabilities('legacy'),
      instructions: surface.instructions,
      jsonSchemaValidator: this.validator,
    });
    server.setRequestHandler(ListToolsRequestSchema, () => surface.listTools(context.sessionId));
    server.setRequestHandler(CallToolRequestSchema, (request, extra) =>
      surface.callTool(request.params.name, request.params.arguments, {
        sessionId: context.sessionId,
        requestId: extra.requestId,
        clientId: context.clientId,
        progressToken: request.params._meta?.progressToken,
        signal: extra.signal,
        sendNotification: (notification) => extra.sendNotification(notification),
      }),
    );
    // Replaces the SDK's per-server cancel handler: the cancel arrives on another POST (McpSurface.cancel).
    server.setNotificationHandler(CancelledNotificationSchema, ({ params }) => surface.cancel(context.sessionId, context.clientId, params.requestId, params.reason));
    server.onerror = (error) => this.logger.debug({ err: error.message }, 'mcp protocol error');
    return server;
  }

  /**
   * Connects a server to a transport. The SDK answers `initialize`, `ping` and notifications itself: the
   * transport reports those to the surface, for `/metrics` (Go §11) and the eager start (C-MCP-13).
   */
  async connect(server: Server, transport: Transport, context: McpRequestContext): Promise<void> {
    const { surface } = this;
    const metered = { observe: surface.observeProtocol.bind(surface) };
    await server.connect(new MeteredTransport(transport, metered, (method) => surface.noticeProtocolRequest(context.sessionId, method)));
  }
}
