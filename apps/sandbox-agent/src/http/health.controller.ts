import { Controller, Get, Res } from '@nestjs/common';
import type { HealthResponse } from '@cli-mcp/agent-client';
import type { FastifyReply } from 'fastify';
import { ExecService } from '../exec/exec-service.js';
import { ShellEngine } from '../shell/shell-engine.js';
import { AssignmentState } from '../state/assignment-state.js';

export interface UnhealthyResponse {
  status: 'unhealthy';
  error: string;
}

/**
 * `GET /health` (HEAD too, via Fastify's automatic HEAD routes) — C-AG-3: synchronous, never waits for the shell,
 * so it answers at once while a long command runs (the Go agent blocked here, §18 item 12). Ready whether
 * assigned or not: warm-pool agents must be Ready to be claimed.
 */
@Controller()
export class HealthController {
  constructor(
    private readonly engine: ShellEngine,
    private readonly exec: ExecService,
    private readonly assignment: AssignmentState,
  ) {}

  @Get('health')
  health(@Res({ passthrough: true }) reply: FastifyReply): HealthResponse | UnhealthyResponse {
    const health = this.engine.health();
    if (!health.ok) {
      reply.status(503);
      return { status: 'unhealthy', error: health.error };
    }
    return { status: 'ok', assigned: this.assignment.assigned, busy: this.exec.busy };
  }
}
