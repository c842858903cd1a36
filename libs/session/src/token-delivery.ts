import { randomUUID } from 'node:crypto';
import { AgentError, AgentErrorCode } from '@cli-mcp/agent-client';
import type { AgentClient } from '@cli-mcp/agent-client';
import { SessionError, SessionErrorCode } from './session-error.js';

/** The agent calls a token delivery makes: `/assign`, and `/output` as the read-only check of who holds a token. */
export type TokenDeliveryPort = Pick<AgentClient, 'assign' | 'output'>;

/** Whether the agent now serves the token: `assigned` (it holds ours) or `foreign` (it holds another one). */
export type TokenDelivery = 'assigned' | 'foreign';

/**
 * The ONE way a session token reaches an agent, on both backends (C-AG-13, issue 19 item 3): the claim of a warm
 * pod or a warm local agent, and the re-delivery to an agent that restarted unassigned (C-K8S-4, C-K8S-7).
 *
 * `POST /assign` 200 → `assigned`. A 409 means the agent already holds a token: since C-AG-13 only a DIFFERENT
 * one, but an agent built before it answers 409 to every second assign, also to our own token delivered first
 * by a sibling replica (a claimer racing a sibling's re-delivery). Deciding "foreign" on the 409 alone made the
 * claimer delete a pod the sibling was serving. So a 409 — and an ambiguous failure such as a timeout, after
 * which the assign may have landed — is settled by asking the agent whether it accepts OUR token: `POST
 * /output` with it as bearer (read-only; a request id no command has) → 200 = ours, 401 = another token. A 503
 * ("not assigned") or an unreachable agent means the assign did not land: the original error is thrown.
 */
export async function deliverToken(agent: TokenDeliveryPort, agentUrl: string, token: string, signal: AbortSignal): Promise<TokenDelivery> {
  try {
    await agent.assign(agentUrl, token, signal);
    return 'assigned';
  } catch (error) {
    if (signal.aborted || !mayHaveAssigned(error)) throw error;
    const holder = await tokenHolder(agent, agentUrl, token, signal);
    if (holder === 'unknown') throw error;
    return holder;
  }
}

/** 409 (holds some token) or a failure after which the request may have been processed. */
function mayHaveAssigned(error: unknown): boolean {
  if (!(error instanceof AgentError)) return false;
  // Another token is held, or the agent failed while it may have processed the request. A code-less 5xx (a proxy)
  // says no more than that.
  if (error.code === AgentErrorCode.AlreadyAssigned || error.code === AgentErrorCode.Internal) return true;
  if (error.code === AgentErrorCode.UnexpectedStatus) return (error.status ?? 0) >= 500;
  // A refused connection never reached the agent; a reset or a timeout may have after it took the request.
  return error.code === AgentErrorCode.Network && error.errno !== 'ECONNREFUSED' && error.errno !== 'ENOENT';
}

async function tokenHolder(agent: TokenDeliveryPort, agentUrl: string, token: string, signal: AbortSignal): Promise<TokenDelivery | 'unknown'> {
  try {
    await agent.output(agentUrl, token, `token-check-${randomUUID()}`, signal);
    return 'assigned';
  } catch (error) {
    if (error instanceof AgentError && error.code === AgentErrorCode.Unauthorized) return 'foreign';
    if (signal.aborted) throw error;
    return 'unknown';
  }
}

/**
 * `deliverToken` for a caller that has no other agent to try (the local backend's warm claim and re-delivery):
 * an agent holding another token belongs to someone else and is never used for this session.
 */
export async function deliverTokenOrFail(agent: TokenDeliveryPort, agentUrl: string, token: string, signal: AbortSignal): Promise<void> {
  if ((await deliverToken(agent, agentUrl, token, signal)) === 'foreign') {
    throw new SessionError(SessionErrorCode.AgentFailure, 'the sandbox agent is assigned to another session');
  }
}
