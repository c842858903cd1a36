import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export const REPO_ROOT = fileURLToPath(new URL('../../../../', import.meta.url));
export const AGENT_ENTRY = `${REPO_ROOT}dist/sandbox-agent/main.js`;

export const agentBuilt = existsSync(AGENT_ENTRY);

function probeBwrap(): string | undefined {
  const probe = spawnSync('bwrap', ['--die-with-parent', '--unshare-pid', '--unshare-ipc', '--unshare-uts', '--ro-bind', '/', '/', 'true']);
  if (probe.error) return `bwrap not installed (${probe.error.message})`;
  if (probe.status !== 0) return `bwrap does not work here: ${probe.stderr.toString().trim()}`;
  return undefined;
}

export const bwrapProblem = probeBwrap();

if (!agentBuilt) console.warn(`[session integration] skipped: the sandbox agent is not built (${AGENT_ENTRY}); run npm run build`);
if (bwrapProblem) console.warn(`[session integration] bwrap cases skipped: ${bwrapProblem}`);

/** Isolation modes to run: always `none`, plus `bwrap` when it works here. */
export const ISOLATIONS: Array<'none' | 'bwrap'> = bwrapProblem ? ['none'] : ['none', 'bwrap'];
