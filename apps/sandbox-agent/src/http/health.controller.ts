import type { ExecService } from '../exec/exec-service.js';
import type { ShellEngine } from '../shell/shell-engine.js';
import type { AssignmentState } from '../state/assignment-state.js';
import type { DumpState } from '../non-dumpable.js';
import { AgentErrorCode } from '@cli-mcp/agent-client';
import { ok, type AgentReply } from './agent-route.js';

/**
 * `GET /health` (and HEAD) — C-AG-3: synchronous, never waits for the shell, so it answers at once while a long
 * command runs (the Go agent blocked here, §18 item 12). Ready whether assigned or not: warm-pool agents must be
 * Ready to be claimed. 503 with a reason only when no shell can be started. `nonDumpable` says whether the
 * commands are kept out of the agent's memory and environment (issue 22 item 4; the start log says why not).
 */
export class HealthController {
  constructor(
    private readonly engine: ShellEngine,
    private readonly exec: ExecService,
    private readonly assignment: AssignmentState,
    private readonly dumpState: DumpState,
  ) {}

  health(): AgentReply {
    const health = this.engine.health();
    if (!health.ok) return { status: 503, body: { status: 'unhealthy', error: health.error, code: AgentErrorCode.ShellUnavailable } };
    return ok({ status: 'ok', assigned: this.assignment.assigned, busy: this.exec.busy, nonDumpable: this.dumpState.nonDumpable });
  }
}
