import { homedir } from 'node:os';
import { dirname, resolve } from 'node:path';
import type { HostFs } from './host-fs.js';
import { nodeInstallPrefix, type BwrapPlan } from './launch-spec.js';

export interface BwrapPlanInput {
  hostFs: HostFs;
  bwrapPath: string;
  nodePath: string;
  agentEntry: string;
  stateDir: string;
  hostHome?: string;
  hidePaths?: readonly string[];
}

/**
 * What a bubblewrap sandbox must see and must not (docs/local-backend.md): the server user's home is masked but
 * the node install and the project holding the agent stay readable; the state dir (other sessions, the generated
 * key) and any extra secret paths are masked last.
 */
export async function planBwrap(input: BwrapPlanInput): Promise<BwrapPlan> {
  const { hostFs } = input;
  const nodeReal = await hostFs.realpath(input.nodePath).catch(() => input.nodePath);
  const agentReal = await hostFs.realpath(input.agentEntry).catch(() => input.agentEntry);
  const projectRoot = (await hostFs.findUp(dirname(agentReal), 'node_modules')) ?? dirname(agentReal);
  const hideDirs: string[] = [];
  const hideFiles: string[] = [];
  for (const path of (input.hidePaths ?? []).map((p) => resolve(p))) {
    if (await hostFs.isDirectory(path)) hideDirs.push(path);
    else if (await hostFs.isFile(path)) hideFiles.push(path);
  }
  return {
    bwrapPath: input.bwrapPath,
    rootEntries: await hostFs.listRoot(),
    maskFirst: [resolve(input.hostHome ?? homedir())],
    keep: [nodeInstallPrefix(nodeReal), projectRoot].filter((dir) => dir !== '/'),
    maskLast: [input.stateDir, ...hideDirs],
    hideFiles,
  };
}
