import { AgentError, AgentErrorCode } from '@cli-mcp/agent-client';
import { SessionError, SessionErrorCode } from '../session-error.js';
import type { LocalAgentPort } from './local-backend.options.js';

/**
 * The local backend's one way to give an agent its session token (C-AG-13), used by warm claims and by the
 * re-delivery to an agent that restarted unassigned: 200 — the agent now serves this session (also when it
 * already held this very token, the agent's `/assign` being idempotent); 409 — it holds another token, so it
 * belongs to someone else and must never be used for this session.
 */
export async function assignAgent(agent: LocalAgentPort, agentUrl: string, token: string, signal: AbortSignal): Promise<void> {
  try {
    await agent.assign(agentUrl, token, signal);
  } catch (error) {
    if (error instanceof AgentError && error.code === AgentErrorCode.AlreadyAssigned) {
      throw new SessionError(SessionErrorCode.AgentFailure, 'the sandbox agent is assigned to another session', { cause: error });
    }
    throw error;
  }
}
