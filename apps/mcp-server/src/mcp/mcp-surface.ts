import { isValidSessionId } from '@cli-mcp/session';
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import { Inject, Injectable } from '@nestjs/common';
import type { Logger } from 'pino';
import type { ServerConfig } from '../config/server-config.js';
import { SERVER_NAME } from '../metrics/mcp-metrics.js';
import { MetricsService } from '../metrics/metrics.service.js';
import type { SessionService } from '../sessions/session-service.port.js';
import { APP_LOGGER, SERVER_CONFIG, SESSION_SERVICE } from '../tokens.js';
import { agentRequestId } from './agent-request-id.js';
import { bashToolDefinition } from './bash-tool.definition.js';
import { BashToolService, type BashCallContext } from './bash-tool.service.js';
import { EagerAcquisition } from './eager-acquisition.js';
import { ProtocolError } from './protocol-error.js';
import { RunningCalls } from './running-calls.js';

/** 2025 revisions (`initialize`) or 2026-07-28 (`server/discover`), C-MCP-12. */
export type McpEra = 'legacy' | 'modern';

/** One tool of the registry: what `tools/list` shows and what `tools/call` runs. */
interface RegisteredTool {
  readonly definition: Tool;
  readonly handler: (args: unknown, call: BashCallContext) => Promise<CallToolResult>;
}

/** Methods this surface meters and notices itself; the SDK-era adapters report only the others. */
const SURFACE_METHODS: ReadonlySet<string> = new Set(['tools/list', 'tools/call']);

/**
 * What every MCP path serves (issue 19 item 2): HTTP 2025 (SDK v1 adapter), HTTP 2026-07-28 and stdio of either
 * era (SDK v2 adapter) take identity, capabilities, instructions and tools from here, built once from the validated
 * config, and their handlers call `listTools`/`callTool` — the one wrapper that meters (Go §11), starts the
 * sandbox early (C-MCP-13) and refuses (and logs) unknown tools (C-MCP-4). Call logging and cancel registration are
 * the tool's (BashToolService), so every path gets them too; `cancel` is the one cross-replica cancel route (C-MCP-9).
 */
@Injectable()
export class McpSurface {
  readonly info: { readonly name: string; readonly version: string };
  readonly instructions: string;
  private readonly tools: ReadonlyMap<string, RegisteredTool>;
  private readonly definitions: Tool[];

  constructor(
    @Inject(SERVER_CONFIG) config: ServerConfig,
    @Inject(SESSION_SERVICE) private readonly sessions: SessionService,
    @Inject(APP_LOGGER) private readonly logger: Logger,
    private readonly metrics: MetricsService,
    private readonly eager: EagerAcquisition,
    private readonly running: RunningCalls,
    bash: BashToolService,
  ) {
    this.info = { name: SERVER_NAME, version: config.version };
    this.instructions = config.tool.instructions;
    const registered: RegisteredTool[] = [{ definition: bashToolDefinition(config.tool), handler: (args, call) => bash.call(args, call) }];
    this.tools = new Map(registered.map((tool) => [tool.definition.name, tool]));
    this.definitions = registered.map((tool) => tool.definition);
  }

  /** C-MCP-1: `logging` is declared to 2025-era clients; 2026-07-28 deprecates it. */
  capabilities(era: McpEra): { tools: Record<string, never>; logging?: Record<string, never> } {
    return era === 'legacy' ? { tools: {}, logging: {} } : { tools: {} };
  }

  /** `tools/list`: never touches the session layer beyond the eager start (C-MCP-7, C-MCP-13). */
  listTools(sessionId: string | undefined): { tools: Tool[] } {
    this.eager.noticeRequest(sessionId, 'tools/list');
    this.metrics.mcp.observe('tools/list', undefined, true, 0);
    return { tools: this.definitions };
  }

  /** `tools/call`, metered whatever its outcome; an unknown tool is a JSON-RPC invalid-params error naming it. */
  async callTool(name: string, args: unknown, call: BashCallContext): Promise<CallToolResult> {
    const started = performance.now();
    let success = false;
    try {
      const tool = this.tools.get(name);
      if (!tool) {
        // Logged like every other call outcome (BashToolService logs the tool's own); the name is cut, since it
        // is the client's text.
        this.logger.info({ event: 'tool_call', session_id: call.sessionId, outcome: 'rejected', reason: 'unknown_tool', tool: name.slice(0, 64) }, 'tool call rejected');
        throw ProtocolError.invalidParams(`unknown tool ${JSON.stringify(name)}`);
      }
      const result = await tool.handler(args, call);
      success = result.isError !== true;
      return result;
    } finally {
      this.metrics.mcp.observe('tools/call', name, success, (performance.now() - started) / 1000);
    }
  }

  /** A request the SDK answers without a handler of ours (initialize, ping, server/discover): starts the sandbox. */
  noticeProtocolRequest(sessionId: string | undefined, method: string): void {
    if (!SURFACE_METHODS.has(method)) this.eager.noticeRequest(sessionId, method);
  }

  /** Meters a message the SDK handled itself (requests as above, notifications); tool methods are metered here already. */
  observeProtocol(method: string, toolName: string | undefined, success: boolean, seconds: number): void {
    if (!SURFACE_METHODS.has(method)) this.metrics.mcp.observe(method, toolName, success, seconds);
  }

  /**
   * `notifications/cancelled` in stateless HTTP: it arrives on another POST, i.e. another `Server`, possibly on
   * another replica, so the SDK's per-server map cannot find the call (C-MCP-9). Stops the one call of that name
   * here, or asks the session's sandbox to.
   */
  async cancel(sessionId: string | undefined, clientId: string | undefined, requestId: string | number | undefined, reason: string | undefined): Promise<void> {
    if (requestId === undefined || !sessionId || !isValidSessionId(sessionId)) return;
    const agentId = agentRequestId(requestId, clientId);
    const outcome = this.running.abort(sessionId, agentId, reason ?? 'cancelled by the client');
    if (outcome !== 'absent') {
      // Ambiguous: clients without a client id reused a JSON-RPC id; stopping either could be the wrong one.
      const level = outcome === 'aborted' ? 'info' : 'warn';
      this.logger[level]({ event: 'cancel', session_id: sessionId, where: 'local', outcome }, outcome === 'aborted' ? 'cancelled a running call' : 'cancel names several calls: none stopped');
      return;
    }
    try {
      // `waiting`: the call had not reached the sandbox yet (it may be in flight from another replica); the agent
      // refuses it when it comes.
      const forwarded = await this.sessions.cancel(sessionId, agentId);
      this.logger.info({ event: 'cancel', session_id: sessionId, where: 'sandbox', outcome: forwarded }, 'forwarded a cancel to the sandbox');
    } catch (error) {
      this.logger.warn({ event: 'cancel', session_id: sessionId, error: error instanceof Error ? error.message : String(error) }, 'cancel failed');
    }
  }
}
