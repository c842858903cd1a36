import { Body, Controller, HttpCode, Inject, Post } from '@nestjs/common';
import { AssignmentState } from '../state/assignment-state.js';
import { AGENT_LOG } from './tokens.js';
import type { AgentLog } from '../logging/agent-logger.js';
import { AgentError, AgentErrorCode } from './agent-error.js';
import { parseAssignToken } from './request-bodies.js';

/**
 * `POST /assign` (C-AG-2): unauthenticated by design; body checked before state; the first token wins, the same token
 * again is 200 (C-AG-13), another one 409.
 */
@Controller()
export class AssignController {
  constructor(private readonly assignment: AssignmentState, @Inject(AGENT_LOG) private readonly log: AgentLog) {}

  @Post('assign')
  @HttpCode(200)
  assign(@Body() body: unknown): Record<string, never> {
    const token = parseAssignToken(body);
    const outcome = this.assignment.assign(token);
    if (outcome === 'conflict') throw new AgentError(AgentErrorCode.AlreadyAssigned);
    this.log.info(outcome === 'assigned' ? 'assigned' : 'assigned again with the token already held');
    return {};
  }
}
