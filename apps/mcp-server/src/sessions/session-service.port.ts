import type { ExecRequest, OutputResponse } from '@cli-mcp/agent-client';
import type { BackendHealth, CancelOutcome, SessionExecResult } from '@cli-mcp/session';

/**
 * What the MCP layer needs from libs/session (the `SessionManager` methods), as a port so the tool handler and
 * controllers are unit-tested with a strict fake. Every method throws `SessionError` on failure.
 */
export interface SessionService {
  /** Runs one command in the session's sandbox, creating the sandbox on first use. */
  execute(sessionId: string, request: ExecRequest, signal: AbortSignal): Promise<SessionExecResult>;
  /**
   * Acquires the session's sandbox ahead of its first command (C-MCP-13), in the same single flight, bounded by
   * the acquire timeout. Throws `SessionError`; callers only log it.
   */
  prepare(sessionId: string): Promise<void>;
  /** Stops the command `requestId` wherever the session's sandbox is (C-MCP-9), or has it refused when it arrives. */
  cancel(sessionId: string, requestId: string): Promise<CancelOutcome>;
  /** The running command's latest output, undefined when unknown (C-MCP-10 progress; never throws). */
  peek(sessionId: string, requestId: string): Promise<OutputResponse | undefined>;
  /** Deletes the session's sandbox; idempotent (C-HTTP-1). */
  end(sessionId: string, signal: AbortSignal): Promise<void>;
  /** Throws when the backend cannot create sandboxes (C-HTTP-2); may report details for `/health` (C-SEC-4). */
  checkHealth(signal: AbortSignal): Promise<BackendHealth | void>;
  /** Stops background work and (local) every sandbox process (C-HTTP-4). */
  shutdown(): Promise<void>;
}
