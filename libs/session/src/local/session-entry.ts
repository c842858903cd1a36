import type { SandboxHandle } from '../sandbox-backend.port.js';
import type { AgentProcess } from './process-launcher.js';
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
