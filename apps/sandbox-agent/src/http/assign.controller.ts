import { Body, Controller, HttpCode, Inject, Post } from '@nestjs/common';
import { AssignmentState } from '../state/assignment-state.js';
import { AGENT_LOG } from './tokens.js';
import type { AgentLog } from '../logging/agent-logger.js';
import { AgentError, AgentErrorCode } from './agent-error.js';
import { parseAssignToken } from './request-bodies.js';

/** `POST /assign` (C-AG-2): unauthenticated by design; body checked before state; once only. */
@Controller()
export class AssignController {
  constructor(private readonly assignment: AssignmentState, @Inject(AGENT_LOG) private readonly log: AgentLog) {}

  @Post('assign')
  @HttpCode(200)
  assign(@Body() body: unknown): Record<string, never> {
    const token = parseAssignToken(body);
    if (!this.assignment.assign(token)) throw new AgentError(AgentErrorCode.AlreadyAssigned);
    this.log.info('assigned');
    return {};
  }
}
