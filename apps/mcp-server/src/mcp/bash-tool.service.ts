import { AGENT_MAX_BODY_BYTES, clampTimeout, type ExecRequest } from '@cli-mcp/agent-client';
import { chosenFieldsLogger } from '@cli-mcp/common';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { Inject, Injectable } from '@nestjs/common';
import type { Logger } from 'pino';
import type { ServerConfig } from '../config/server-config.js';
import { describeSessionFailure, invalidSessionIdText } from '../sessions/session-failure.js';
import { isValidSessionId } from '@cli-mcp/session';
import type { SessionService } from '../sessions/session-service.port.js';
import { APP_LOGGER, SERVER_CONFIG, SESSION_SERVICE } from '../tokens.js';
import { agentRequestId } from './agent-request-id.js';
import { parseBashArguments } from './bash-arguments.js';
import { startProgress, type ProgressToken, type SendProgress } from './progress-reporter.js';
import { renderResult } from './render/render-result.js';
import { RunningCalls } from './running-calls.js';

/** Largest command accepted (UTF-8 bytes): the agent's body limit (C-AG-1), checked here to give a clear error. */
export const MAX_COMMAND_BYTES = AGENT_MAX_BODY_BYTES;

/** What one `tools/call` of `bash` knows besides its arguments. */
export interface BashCallContext {
  /** `X-Session-ID` (HTTP) or the process's session (stdio); undefined/empty = missing. */
  readonly sessionId: string | undefined;
  /** JSON-RPC id: with the client id, the call's name for cancels and peeks (C-MCP-9). */
  readonly requestId: string | number;
  /** The id the server issued to this client at `initialize` (HTTP `Mcp-Session-Id`), when it has one. */
  readonly clientId?: string | undefined;
  readonly progressToken: ProgressToken | undefined;
  /** Aborted when the client goes away (transport closed). */
  readonly signal: AbortSignal;
  readonly sendNotification: SendProgress;
}

/**
 * The `bash` tool (C-MCP-2…7, 9, 10): validates in the contract's order, runs the command through the session
 * service with a cancellable signal and progress, and renders the result. Every outcome is one structured log
 * line without command text or output.
 */
@Injectable()
export class BashToolService {
  /** The per-call `tool_call` record: flat fields chosen below (ids, numbers, an error's message), so no redaction walk. */
  private readonly logger: Logger;

  constructor(
    @Inject(SESSION_SERVICE) private readonly sessions: SessionService,
    @Inject(SERVER_CONFIG) private readonly config: ServerConfig,
    @Inject(APP_LOGGER) logger: Logger,
    private readonly running: RunningCalls,
  ) {
    this.logger = chosenFieldsLogger(logger, {});
  }

  async call(args: unknown, context: BashCallContext): Promise<CallToolResult> {
    const { command, timeout, tty } = parseBashArguments(args); // JSON-RPC errors, before any tool error
    const started = performance.now();
    const sessionId = context.sessionId;
    const log = (fields: Record<string, unknown>, message: string, level: 'info' | 'warn' = 'info'): void =>
      this.logger[level]({ event: 'tool_call', session_id: sessionId, duration_ms: Math.round(performance.now() - started), ...fields }, message);

    if (!sessionId) return rejected(log, 'missing_session_id', 'missing X-Session-ID header');
    if (command === '') return rejected(log, 'empty_command', 'command is required');
    const tooLarge = this.commandSizeProblem(command);
    if (tooLarge) return rejected(log, 'command_too_large', tooLarge);
    if (!isValidSessionId(sessionId)) return rejected(log, 'invalid_session_id', invalidSessionIdText(sessionId));

    const { tool } = this.config;
    const timeoutSeconds = clampTimeout(timeout, { defaultSeconds: tool.defaultTimeoutSeconds, maxSeconds: tool.maxTimeoutSeconds });
    const agentId = agentRequestId(context.requestId, context.clientId);
    const call = this.running.register(sessionId, agentId, context.signal);
    const peek = () => this.sessions.peek(sessionId, agentId);
    const stopProgress = startProgress(context.progressToken, tool.progressIntervalMs, context.sendNotification, peek);
    try {
      // C-MCP-11: the agent answers at the yield point if the command still runs then (never past the timeout; tty
      // commands do not yield).
      const yieldAfter = !tty && tool.yieldAfterMs > 0 && tool.yieldAfterMs < timeoutSeconds * 1000 ? { yield_after: tool.yieldAfterMs / 1000 } : {};
      const request: ExecRequest = { command, timeout: timeoutSeconds, request_id: agentId, ...(tty ? { tty: true } : {}), ...yieldAfter };
      const result = await this.sessions.execute(sessionId, request, call.signal);
      const rendered = renderResult({
        response: result.response,
        sandboxRecreated: result.sandboxRecreated,
        sandboxLoss: result.sandboxLoss,
        timeoutSeconds,
        format: tool.resultFormat,
        maxChars: tool.maxOutputChars,
      });
      const { response } = result;
      log(
        {
          outcome: response.running ? `yielded_${response.yield_mode ?? 'shell'}` : response.timed_out ? 'timed_out'
            : response.cancelled ? 'cancelled' : response.exit_code === 0 ? 'ok' : 'nonzero_exit',
          exit_code: response.exit_code,
          exec_ms: response.duration_ms,
          timeout_s: timeoutSeconds,
          acquire_path: result.acquirePath,
          sandbox_recreated: result.sandboxRecreated,
          truncated: rendered.structured.truncated,
        },
        'bash call finished',
      );
      return {
        content: [{ type: 'text', text: rendered.text }],
        structuredContent: rendered.structured as unknown as Record<string, unknown>,
        ...(rendered.isError ? { isError: true } : {}),
      };
    } catch (error) {
      const failure = describeSessionFailure(error, sessionId);
      // The cause may be long or internal: logs get it (never a token, libs promise), the model gets toolText.
      log({ outcome: failure.reason, error: error instanceof Error ? error.message : String(error) }, 'bash call failed', 'warn');
      return toolError(failure.toolText);
    } finally {
      stopProgress();
      call.release();
    }
  }

  /**
   * Commands over 1 MiB (C-AG-1) — or whose JSON request to the agent would exceed its 1 MiB body limit — are
   * refused here with the sizes, instead of an opaque 413 from the agent.
   */
  private commandSizeProblem(command: string): string | undefined {
    const bytes = Buffer.byteLength(command);
    if (bytes > MAX_COMMAND_BYTES) return `command is too large (${bytes} bytes; the limit is ${MAX_COMMAND_BYTES})`;
    // Envelope: the other request fields are bounded (timeout, request_id ≤ 128 chars), 512 bytes cover them.
    const encoded = Buffer.byteLength(JSON.stringify(command)) + 512;
    if (encoded > AGENT_MAX_BODY_BYTES) {
      return `command is too large (${bytes} bytes, about ${encoded} bytes as JSON; the limit is ${AGENT_MAX_BODY_BYTES} bytes of JSON)`;
    }
    return undefined;
  }

}

function rejected(log: (fields: Record<string, unknown>, message: string) => void, reason: string, text: string): CallToolResult {
  log({ outcome: 'rejected', reason }, 'bash call rejected');
  return toolError(text);
}

/** A tool error (C-MCP-4): one text item, `isError`, no structured content. */
export function toolError(text: string): CallToolResult {
  return { content: [{ type: 'text', text }], isError: true };
}
