import { readdirSync, readFileSync } from 'node:fs';
import { readProcStat } from '@cli-mcp/testing';

/** pid → parent pid of every process, from /proc. */
function parentTable(): Map<number, number> {
  const table = new Map<number, number>();
  for (const name of readdirSync('/proc')) {
    const stat = /^\d+$/.test(name) ? readProcStat(Number(name)) : undefined;
    if (stat) table.set(stat.pid, stat.ppid);
  }
  return table;
}

/** Every descendant of `pid` (children, grandchildren, …). */
export function descendantsOf(pid: number): number[] {
  const table = parentTable();
  const found: number[] = [];
  const queue = [pid];
  while (queue.length > 0) {
    const parent = queue.shift()!;
    for (const [child, ppid] of table) {
      if (ppid === parent && !found.includes(child)) {
        found.push(child);
        queue.push(child);
      }
    }
  }
  return found;
}

export function pidOf(sandboxName: string): number {
  const pid = Number(/^pid-(\d+)$/.exec(sandboxName)?.[1]);
  if (!Number.isInteger(pid)) throw new Error(`unexpected sandbox name ${sandboxName}`);
  return pid;
}

function commandLine(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ');
  } catch {
    return '';
  }
}

/** How the agent's entry appears on its command line inside a bubblewrap sandbox (bound alone, C-SEC-1). */
const SANDBOXED_ENTRY = '/.cli-mcp/agent/main.js';

/**
 * The node process running the agent: the sandbox process itself (isolation none) or its descendant inside
 * bwrap. Killing it is a genuine agent crash (bwrap then exits because its command did).
 */
export function agentPidOf(sandboxPid: number, agentEntry: string): number {
  const candidates = [sandboxPid, ...descendantsOf(sandboxPid)];
  const isAgent = (line: string): boolean => (line.includes(agentEntry) || line.includes(SANDBOXED_ENTRY)) && !line.includes('bwrap');
  const agent = candidates.find((pid) => isAgent(commandLine(pid)));
  if (agent === undefined) throw new Error(`no agent process under ${sandboxPid}`);
  return agent;
}
