import type { AgentLog } from '../logging/agent-logger.js';
import type { AssignmentState } from '../state/assignment-state.js';
import { AgentError, AgentErrorCode } from '@cli-mcp/agent-client';
import { ok, type AgentReply, type RouteRequest } from './agent-route.js';
import { parseAssignToken } from './request-bodies.js';

/**
 * `POST /assign` (C-AG-2): unauthenticated by design; body checked before state; the first token wins, the same token
 * again is 200 (C-AG-13), another one 409.
 */
export class AssignController {
  constructor(private readonly assignment: AssignmentState, private readonly log: AgentLog) {}

  assign(request: RouteRequest): AgentReply {
    const token = parseAssignToken(request.body);
    const outcome = this.assignment.assign(token);
    if (outcome === 'conflict') throw new AgentError(AgentErrorCode.AlreadyAssigned);
    this.log.info(outcome === 'assigned' ? 'assigned' : 'assigned again with the token already held');
    return ok({});
  }
}
