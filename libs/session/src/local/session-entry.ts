import type { SandboxHandle } from '../sandbox-backend.port.js';
import type { AgentProcess, ProcessExit } from './process-launcher.js';
import type { StartedAgent } from './sandbox-process.js';

/** What the local backend holds per session. */
export interface SessionEntry {
  sessionId: string;
  token: string;
  /** Host path of the workspace; survives agent crashes. */
  workspace: string;
  process?: AgentProcess;
  handle?: SandboxHandle;
  /** Set when we are stopping the agent on purpose (its exit is not a crash). */
  stopping: boolean;
}

/** A pre-started, unassigned agent waiting in the pool (`--warm-pool-size`). */
export interface WarmAgent extends StartedAgent {
  name: string;
}

/**
 * Makes `agent` the session's. When that process ends, the entry forgets it (the workspace stays) and `onExit`
 * learns whether the end was a crash (not stopped on purpose), so the next acquisition recreates the agent.
 */
export function adoptAgent(
  entry: SessionEntry, agent: StartedAgent, path: 'create' | 'claim', onExit: (crashed: boolean, exit: ProcessExit) => void,
): void {
  entry.stopping = false;
  entry.process = agent.process;
  entry.handle = { sessionId: entry.sessionId, agentUrl: agent.url, token: entry.token, sandboxName: `pid-${agent.process.pid}`, path };
  void agent.process.exited.then((exit) => {
    if (entry.process !== agent.process) return;
    entry.process = undefined;
    entry.handle = undefined;
    onExit(!entry.stopping, exit);
  });
}

/** The live handle of an entry whose agent still runs. */
export function liveHandle(entry: SessionEntry | undefined): SandboxHandle | undefined {
  return entry?.handle && entry.process && !entry.process.hasExited ? entry.handle : undefined;
}
