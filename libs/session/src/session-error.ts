/** Why a session operation failed. Mapped to MCP/HTTP text in one place (apps/mcp-server). */
export enum SessionErrorCode {
  /** Session id is not an RFC 1123 label (C-MCP-7). */
  InvalidSessionId = 'INVALID_SESSION_ID',
  /** The sandbox could not be created, claimed or made ready. */
  SandboxUnavailable = 'SANDBOX_UNAVAILABLE',
  /** A configured limit (e.g. `--max-sessions`) stops a new sandbox. */
  CapacityExhausted = 'CAPACITY_EXHAUSTED',
  /** The agent could not be reached or answered with an error. */
  AgentFailure = 'AGENT_FAILURE',
  /** The backend's substrate (Kubernetes API, local spawner) failed. */
  BackendFailure = 'BACKEND_FAILURE',
  /**
   * `--egress-gateway` is on and the fail-closed gate is shut (C-EGR-6): no pod was claimed or created. The
   * message names every missing condition.
   */
  EgressNotEnforced = 'EGRESS_NOT_ENFORCED',
  /** The caller's signal ended the operation. */
  Cancelled = 'CANCELLED',
  /** The server is shutting down. */
  ShuttingDown = 'SHUTTING_DOWN',
}

/**
 * The one error class of libs/session. `message` is safe to show to a model (no token, no stack); it keeps the
 * Go catalogue's meaning (Go §2.2), e.g. `resolve pod: create sandbox pod: create pod: <reason>`.
 */
export class SessionError extends Error {
  constructor(
    readonly code: SessionErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'SessionError';
  }
}
