import { Module, type DynamicModule } from '@nestjs/common';
import { ExecService } from './exec/exec-service.js';
import { AssignController } from './http/assign.controller.js';
import { ExecController } from './http/exec.controller.js';
import { HealthController } from './http/health.controller.js';
import { AGENT_LOG } from './http/tokens.js';
import type { AgentLog } from './logging/agent-logger.js';
import { ShellEngine } from './shell/shell-engine.js';
import { AssignmentState } from './state/assignment-state.js';

export interface AgentParts {
  log: AgentLog;
  engine: ShellEngine;
  exec: ExecService;
  assignment: AssignmentState;
}

/** The agent's Nest module: thin controllers over parts built (and started) before Nest boots. */
@Module({})
export class AgentModule {
  static with(parts: AgentParts): DynamicModule {
    return {
      module: AgentModule,
      controllers: [ExecController, AssignController, HealthController],
      providers: [
        { provide: AGENT_LOG, useValue: parts.log },
        { provide: ShellEngine, useValue: parts.engine },
        { provide: ExecService, useValue: parts.exec },
        { provide: AssignmentState, useValue: parts.assignment },
      ],
    };
  }
}
