import { AgentError, AgentErrorCode } from '@cli-mcp/agent-client';

/**
 * What a failed agent call means for recovery (C-K8S-7):
 * - `not-delivered`: the command certainly did not run (connection refused; 401 from an agent that is not this
 *   session's, e.g. a reused loopback port; 503 from a draining agent) — safe to re-acquire once and retry;
 * - `not-assigned`: `not_assigned` (503) — re-deliver the token, retry once;
 * - `network`: no answer after the request may have reached the agent — invalidate, never retry blindly;
 * - `status` / `decode`: the agent answered; surface its message;
 * - `aborted`: the caller's signal.
 */
export type AgentFailureKind = 'aborted' | 'not-delivered' | 'not-assigned' | 'network' | 'status' | 'decode' | 'unknown';

// Connect-time failures: the request never reached an agent, so the command cannot have run. ENOENT: a Unix
// socket path with no agent behind it (local sandboxes without network).
const NOT_CONNECTED = new Set(['ECONNREFUSED', 'EHOSTUNREACH', 'ENETUNREACH', 'EADDRNOTAVAIL', 'ENOENT']);

/** Decided on the code alone (C-AG-15): the agent's text is only ever shown. */
export function classifyAgentFailure(error: unknown): AgentFailureKind {
  if (!(error instanceof AgentError)) return 'unknown';
  switch (error.code) {
    case AgentErrorCode.Aborted:
      return 'aborted';
    case AgentErrorCode.Network:
      return error.errno !== undefined && NOT_CONNECTED.has(error.errno) ? 'not-delivered' : 'network';
    case AgentErrorCode.NotAssigned:
      return 'not-assigned';
    // A draining agent (its pod is being deleted) and one that holds another session's token refuse the
    // request before running anything.
    case AgentErrorCode.ShuttingDown:
    case AgentErrorCode.Unauthorized:
    case AgentErrorCode.MissingAuthorization:
      return 'not-delivered';
    case AgentErrorCode.BadResponse:
      return 'decode';
    default:
      return 'status';
  }
}

/** Model-safe text of an agent failure, Go catalogue style (`agent request: execute <url>: …`). Never the token. */
export function describeAgentFailure(error: unknown): string {
  if (error instanceof AgentError) {
    const detail = error.status !== undefined && error.code !== AgentErrorCode.BadResponse && error.agentMessage ? `: ${error.agentMessage}` : '';
    return `agent request: ${error.message}${detail}`;
  }
  return `agent request: ${error instanceof Error ? error.message : String(error)}`;
}
