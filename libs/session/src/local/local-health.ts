import type { Clock } from '../clock.js';
import { SessionError, SessionErrorCode } from '../session-error.js';
import type { CommandRunner } from './command-runner.js';
import type { HostFs } from './host-fs.js';
import { probeBash, probeBwrap } from './isolation.js';

export interface LocalHealthInput {
  hostFs: HostFs;
  runner: CommandRunner;
  clock: Clock;
  agentEntry: string;
  bwrapPath: string;
  /** How long a probe result is reused, so frequent `/health` calls do not spawn processes each time. */
  cacheMs: number;
}

/** `/health` of the local backend (C-HTTP-2): the agent is built and bash (and bwrap, when used) can start. */
export class LocalHealth {
  private probe?: { at: number; problem?: string };

  constructor(private readonly input: LocalHealthInput) {}

  async check(isolation: 'bwrap' | 'none' | undefined): Promise<void> {
    const { hostFs, runner, clock, agentEntry, bwrapPath, cacheMs } = this.input;
    if (!(await hostFs.isFile(agentEntry))) {
      throw new SessionError(SessionErrorCode.SandboxUnavailable, `sandbox agent not found at ${agentEntry}: build it first (npm run build)`);
    }
    const now = clock.now();
    if (!this.probe || now - this.probe.at >= cacheMs) {
      const problem = (await probeBash(runner)) ?? (isolation === 'bwrap' ? await probeBwrap(runner, bwrapPath) : undefined);
      this.probe = { at: now, problem };
    }
    if (this.probe.problem) throw new SessionError(SessionErrorCode.SandboxUnavailable, this.probe.problem);
  }
}
