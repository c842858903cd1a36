import { AgentError, AgentErrorCode } from '@cli-mcp/agent-client';

/**
 * What a failed agent call means for recovery (C-K8S-7):
 * - `not-delivered`: the command certainly did not run (connection refused; 401 from an agent that is not this
 *   session's, e.g. a reused loopback port; 503 from a draining agent) — safe to re-acquire once and retry;
 * - `not-assigned`: 503 `agent not assigned` — re-deliver the token, retry once;
 * - `network`: no answer after the request may have reached the agent — invalidate, never retry blindly;
 * - `status` / `decode`: the agent answered; surface its message;
 * - `aborted`: the caller's signal.
 */
export type AgentFailureKind = 'aborted' | 'not-delivered' | 'not-assigned' | 'network' | 'status' | 'decode' | 'unknown';

export const AGENT_NOT_ASSIGNED_MESSAGE = 'agent not assigned';
export const AGENT_SHUTTING_DOWN_MESSAGE = 'agent shutting down';

// Connect-time failures: the request never reached an agent, so the command cannot have run. ENOENT: a Unix
// socket path with no agent behind it (local sandboxes without network).
const NOT_CONNECTED = new Set(['ECONNREFUSED', 'EHOSTUNREACH', 'ENETUNREACH', 'EADDRNOTAVAIL', 'ENOENT']);

export function classifyAgentFailure(error: unknown): AgentFailureKind {
  if (!(error instanceof AgentError)) return 'unknown';
  switch (error.code) {
    case AgentErrorCode.Aborted:
      return 'aborted';
    case AgentErrorCode.Network:
      return error.errno !== undefined && NOT_CONNECTED.has(error.errno) ? 'not-delivered' : 'network';
    case AgentErrorCode.Status:
      if (error.status === 503 && error.agentMessage === AGENT_NOT_ASSIGNED_MESSAGE) return 'not-assigned';
      // A draining agent (its pod is being deleted) refuses new commands before running them.
      if (error.status === 503 && error.agentMessage === AGENT_SHUTTING_DOWN_MESSAGE) return 'not-delivered';
      if (error.status === 401) return 'not-delivered';
      return 'status';
    case AgentErrorCode.Decode:
      return 'decode';
  }
}

/** Model-safe text of an agent failure, Go catalogue style (`agent request: execute <url>: …`). Never the token. */
export function describeAgentFailure(error: unknown): string {
  if (error instanceof AgentError) {
    const detail = error.code === AgentErrorCode.Status && error.agentMessage ? `: ${error.agentMessage}` : '';
    return `agent request: ${error.message}${detail}`;
  }
  return `agent request: ${error instanceof Error ? error.message : String(error)}`;
}
