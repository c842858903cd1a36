import type { ExecService } from '../exec/exec-service.js';
import type { AgentLog } from '../logging/agent-logger.js';
import type { ShellEngine } from '../shell/shell-engine.js';
import type { AssignmentState } from '../state/assignment-state.js';
import type { DumpState } from '../non-dumpable.js';
import type { AgentRoute, RouteTable } from './agent-route.js';
import { AssignController } from './assign.controller.js';
import { ExecController } from './exec.controller.js';
import { HealthController } from './health.controller.js';

export interface AgentParts {
  log: AgentLog;
  engine: ShellEngine;
  exec: ExecService;
  assignment: AssignmentState;
  dumpState: DumpState;
}

/**
 * The agent's whole API (docs/agent.md): the only place a path gets a handler and an auth rule. `/assign` is
 * unauthenticated by design (C-AG-2), `/health` is open (C-AG-3); the rest need the session bearer (C-AG-1).
 */
export function agentRoutes(parts: AgentParts): RouteTable {
  const exec = new ExecController(parts.exec);
  const assign = new AssignController(parts.assignment, parts.log);
  const health = new HealthController(parts.engine, parts.exec, parts.assignment, parts.dumpState);
  return new Map<string, AgentRoute>([
    ['/exec', { method: 'POST', bearer: true, handle: (request) => exec.run(request) }],
    ['/cancel', { method: 'POST', bearer: true, handle: (request) => exec.cancel(request) }],
    ['/output', { method: 'POST', bearer: true, handle: (request) => exec.output(request) }],
    ['/assign', { method: 'POST', bearer: false, handle: (request) => assign.assign(request) }],
    ['/health', { method: 'GET', bearer: false, handle: () => health.health() }],
  ]);
}
