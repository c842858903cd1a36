import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export const REPO_ROOT = fileURLToPath(new URL('../../../../', import.meta.url));
export const AGENT_ENTRY = `${REPO_ROOT}dist/sandbox-agent/main.js`;

/** Why the built agent cannot be used here, or undefined (a sentence for describeWhenReady). */
export const agentProblem = existsSync(AGENT_ENTRY) ? undefined : `the sandbox agent is not built (${AGENT_ENTRY}); run npm run build`;

function probeBwrap(): string | undefined {
  const probe = spawnSync('bwrap', ['--die-with-parent', '--unshare-pid', '--unshare-ipc', '--unshare-uts', '--ro-bind', '/', '/', 'true']);
  if (probe.error) return `bwrap not installed (${probe.error.message})`;
  if (probe.status !== 0) return `bwrap does not work here: ${probe.stderr.toString().trim()}`;
  return undefined;
}

export const bwrapProblem = probeBwrap();

/** Isolation modes to run: both, always; a mode this machine cannot run is gated by isolationProblem, never dropped. */
export const ISOLATIONS: Array<'none' | 'bwrap'> = ['none', 'bwrap'];

/** Why sessions with this isolation cannot run here: the agent first, then bwrap for `bwrap`. */
export function isolationProblem(isolation: 'none' | 'bwrap'): string | undefined {
  return agentProblem ?? (isolation === 'bwrap' ? bwrapProblem : undefined);
}
