import { delimiter, dirname, join } from 'node:path';
import type { Clock } from '@cli-mcp/common';
import { SessionError, SessionErrorCode } from '../session-error.js';
import type { CommandRunner } from './command-runner.js';
import type { EgressReport } from './egress/local-egress.port.js';
import type { HostFs } from './host-fs.js';
import { probeBash, probeCommand, type SandboxPosture } from './isolation.js';

export interface LocalHealthInput {
  hostFs: HostFs;
  runner: CommandRunner;
  clock: Clock;
  agentEntry: string;
  /** How long a probe result is reused, so frequent `/health` calls do not spawn processes each time. */
  cacheMs: number;
}

export interface ProbeCommand {
  command: string;
  args: string[];
}

/** `/health` of the local backend (C-HTTP-2): the agent is built and bash (and bwrap, when used) can start. */
export class LocalHealth {
  private probe?: { at: number; problem?: string };

  constructor(private readonly input: LocalHealthInput) {}

  async check(bwrapProbe: ProbeCommand | undefined): Promise<void> {
    const { hostFs, runner, clock, agentEntry, cacheMs } = this.input;
    await assertAgentPresent(agentEntry, hostFs);
    const now = clock.now();
    if (!this.probe || now - this.probe.at >= cacheMs) {
      const problem = (await probeBash(runner)) ?? (bwrapProbe ? await probeCommand(runner, bwrapProbe, 'bubblewrap') : undefined);
      this.probe = { at: now, problem };
    }
    if (this.probe.problem) throw new SessionError(SessionErrorCode.SandboxUnavailable, this.probe.problem);
  }
}

/** `/health` details (C-SEC-2, C-SEC-4): what isolation is really in force, and every warning about it. */
export function postureDetails(
  posture: SandboxPosture, bounds?: { report: Readonly<Record<string, string>>; warnings: readonly string[] }, egress?: EgressReport,
): Record<string, unknown> {
  const warnings = [...posture.warnings, ...(bounds?.warnings ?? [])];
  return {
    isolation: posture.isolation,
    network: posture.network,
    // `proxy`: the only ways out (hosts and kinds, never a credential) and where decisions are written.
    ...(egress ? { egress } : {}),
    sandbox_user: posture.isolation === 'none' || posture.user === 'server' ? 'server user' : `uid ${posture.user.uid}`,
    // Each bound's value and the layer that enforces it (issue 22), e.g. `tasks: "1024 (cgroupfs)"`.
    ...(bounds ? { bounds: bounds.report } : {}),
    ...(warnings.length > 0 ? { warnings } : {}),
  };
}

/**
 * Fails with advice that fits where the server runs when the agent bundle is missing (issue 22 item 7): in a
 * checkout (its `scripts/build.mjs` beside `dist/`), build it; in an installation without the agent — the server
 * image, which is for `--backend kubernetes` — say so and name what local sandboxes need that it lacks.
 */
export async function assertAgentPresent(agentEntry: string, hostFs: HostFs, path: string = process.env.PATH ?? ''): Promise<void> {
  if (await hostFs.isFile(agentEntry)) return;
  const root = dirname(dirname(dirname(agentEntry)));
  if (await hostFs.isFile(join(root, 'scripts', 'build.mjs'))) {
    throw new SessionError(SessionErrorCode.SandboxUnavailable, `sandbox agent not found at ${agentEntry}: build it first (npm run build)`);
  }
  const missing = ['sandbox agent bundle (dist/sandbox-agent)'];
  const dirs = path.split(delimiter).filter((dir) => dir !== '');
  if (!(await Promise.all(dirs.map((dir) => hostFs.isFile(join(dir, 'bwrap'))))).some(Boolean)) missing.push('bubblewrap (bwrap)');
  throw new SessionError(
    SessionErrorCode.SandboxUnavailable,
    `--backend local cannot run in this installation: it has no ${missing.join(' and no ')}. The server image is for ` +
      '--backend kubernetes; for local sandboxes run cli-mcp-server from the npm package or a checkout, with bubblewrap installed',
  );
}
