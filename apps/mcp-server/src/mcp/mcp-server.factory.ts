import { isValidSessionId } from '@cli-mcp/session';
// The low-level Server (marked deprecated in favour of McpServer): `McpServer.registerTool` turns argument
// validation failures into `isError` results, while the contract wants JSON-RPC errors (C-MCP-4).
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv-provider.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  CallToolRequestSchema,
  CancelledNotificationSchema,
  ListToolsRequestSchema,
  type CancelledNotification,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';
import { Inject, Injectable } from '@nestjs/common';
import type { Logger } from 'pino';
import type { ServerConfig } from '../config/server-config.js';
import { MeteredTransport } from '../metrics/metered-transport.js';
import { MetricsService } from '../metrics/metrics.service.js';
import { SERVER_NAME } from '../metrics/mcp-metrics.js';
import type { SessionService } from '../sessions/session-service.port.js';
import { APP_LOGGER, SERVER_CONFIG, SESSION_SERVICE } from '../tokens.js';
import { agentRequestId } from './agent-request-id.js';
import { BASH_TOOL_NAME, bashToolDefinition } from './bash-tool.definition.js';
import { BashToolService } from './bash-tool.service.js';
import { EagerAcquisition } from './eager-acquisition.js';
import { ProtocolError } from './protocol-error.js';
import { RunningCalls } from './running-calls.js';

/** What a server instance knows about its caller. HTTP: one per POST; stdio: one per process. */
export interface McpRequestContext {
  /** `X-Session-ID` (HTTP) or the configured stdio session. */
  readonly sessionId: string | undefined;
  /** HTTP: the client id the server issued at `initialize`, echoed as `Mcp-Session-Id` (C-MCP-9). */
  readonly clientId?: string;
}

/**
 * Builds MCP `Server`s (C-MCP-1/2): identity, capabilities, instructions, the one `bash` tool and the cancel
 * handler. `initialize`, `tools/list` and `ping` never reach the session layer (C-MCP-7).
 */
@Injectable()
export class McpServerFactory {
  private readonly tool: Tool;
  /**
   * One validator for every per-request Server: the SDK otherwise builds a new Ajv instance per Server, which
   * cost about 1 ms of CPU on every stateless POST (bench/server.bench.mjs).
   */
  private readonly validator = new AjvJsonSchemaValidator();

  constructor(
    @Inject(SERVER_CONFIG) private readonly config: ServerConfig,
    @Inject(SESSION_SERVICE) private readonly sessions: SessionService,
    @Inject(APP_LOGGER) private readonly logger: Logger,
    private readonly bash: BashToolService,
    private readonly running: RunningCalls,
    private readonly metrics: MetricsService,
    private readonly eager: EagerAcquisition,
  ) {
    this.tool = bashToolDefinition(config.tool.defaultTimeoutSeconds, config.tool.maxTimeoutSeconds, config.tool.yieldAfterMs / 1000);
  }

  create(context: McpRequestContext): Server {
    const server = new Server(
      { name: SERVER_NAME, version: this.config.version },
      { capabilities: { tools: {}, logging: {} }, instructions: this.config.tool.instructions, jsonSchemaValidator: this.validator },
    );
    server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: [this.tool] }));
    server.setRequestHandler(CallToolRequestSchema, (request, extra) => {
      const { name, arguments: args, _meta } = request.params;
      if (name !== BASH_TOOL_NAME) throw ProtocolError.invalidParams(`unknown tool ${JSON.stringify(name)}`);
      return this.bash.call(args, {
        sessionId: context.sessionId,
        requestId: extra.requestId,
        clientId: context.clientId,
        progressToken: _meta?.progressToken,
        signal: extra.signal,
        sendNotification: (notification) => extra.sendNotification(notification),
      });
    });
    // Replaces the SDK's per-server cancel handler: in stateless HTTP the cancel arrives on another POST, i.e.
    // another Server, possibly on another replica (C-MCP-9).
    server.setNotificationHandler(CancelledNotificationSchema, (notification) => this.cancel(context, notification));
    server.onerror = (error) => this.logger.debug({ err: error.message }, 'mcp protocol error');
    return server;
  }

  /**
   * Connects a server to a transport, counting every message for `/metrics` (Go §11); requests of a session that
   * are not commands start its sandbox early (C-MCP-13).
   */
  async connect(server: Server, transport: Transport, context: McpRequestContext): Promise<void> {
    await server.connect(new MeteredTransport(transport, this.metrics.mcp, (method) => this.eager.noticeRequest(context.sessionId, method)));
  }

  private async cancel(context: McpRequestContext, notification: CancelledNotification): Promise<void> {
    const { requestId, reason } = notification.params;
    const sessionId = context.sessionId;
    if (requestId === undefined || !sessionId || !isValidSessionId(sessionId)) return;
    const agentId = agentRequestId(requestId, context.clientId);
    const outcome = this.running.abort(sessionId, agentId, reason ?? 'cancelled by the client');
    if (outcome !== 'absent') {
      // Ambiguous: clients without a client id reused a JSON-RPC id; stopping either could be the wrong one.
      const level = outcome === 'aborted' ? 'info' : 'warn';
      this.logger[level]({ event: 'cancel', session_id: sessionId, where: 'local', outcome }, outcome === 'aborted' ? 'cancelled a running call' : 'cancel names several calls: none stopped');
      return;
    }
    // Not running here: the call may run on another replica, so ask the session's sandbox to stop it (the agent
    // too stops only the one command of that name).
    try {
      // `waiting`: the call had not reached the sandbox yet (it may be in flight from another replica); the agent
      // refuses it when it comes.
      const outcome = await this.sessions.cancel(sessionId, agentId);
      this.logger.info({ event: 'cancel', session_id: sessionId, where: 'sandbox', outcome }, 'forwarded a cancel to the sandbox');
    } catch (error) {
      this.logger.warn({ event: 'cancel', session_id: sessionId, error: error instanceof Error ? error.message : String(error) }, 'cancel failed');
    }
  }
}
