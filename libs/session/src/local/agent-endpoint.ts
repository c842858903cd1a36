import { randomBytes } from 'node:crypto';
import { chown, mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { UNIX_URL_PREFIX } from '@cli-mcp/agent-client';
import type { SandboxUser } from './bwrap-command.js';
import { SANDBOX_SOCKET_DIR } from './sandbox-view.js';
const SOCKET_FILE = 'agent.sock';
/** Linux keeps at most 107 bytes of a socket path (sun_path). */
export const MAX_SOCKET_PATH_BYTES = 107;

/** How one sandbox agent is reached: what it is told, what bubblewrap adds, the URL its ready line yields. */
export interface AgentEndpoint {
  /** Added to the agent's environment. */
  readonly env: Readonly<Record<string, string>>;
  /** Host directory bound at SANDBOX_SOCKET_DIR in the sandbox (Unix-socket agents only). */
  readonly socketDir?: string;
  /** The agent URL for its ready line (`<port>` or `unix`); undefined when the line is not what was expected. */
  urlFor(readyLine: string): string | undefined;
  /** Removes what the endpoint left on the host (after the agent exited). */
  release(): Promise<void>;
}

/** Makes one endpoint per agent start (`--local-network`). */
export interface AgentEndpoints {
  /** Once at start-up: checks and cleans what earlier servers left. Throws a SessionError naming the flag. */
  prepare(): Promise<void>;
  allocate(): Promise<AgentEndpoint>;
  /** At shutdown: removes what `prepare` made outside the state dir. */
  close?(): Promise<void>;
}

/**
 * Every local agent listens on a Unix socket, whatever `--local-network` (issue 11: the server and its agents share a
 * host, so no TCP loopback hop). With its own network namespace (`isolated`, `none`) the sandbox could not be reached
 * over TCP at all; with `host` a socket also keeps other sandboxes — which share the host's loopback — from even
 * connecting to the agent. The user's commands keep the network their mode gives them: only the server → agent hop
 * changes. `bound`: the socket directory is bound at SANDBOX_SOCKET_DIR in a bubblewrap sandbox; without isolation
 * the agent is told the host path itself.
 */
export function agentEndpoints(stateDir: string, owner: SandboxUser | undefined, bound: boolean): AgentEndpoints {
  return new UnixSocketEndpoints(join(stateDir, 'sockets'), owner, tmpdir, bound);
}

/**
 * The agent listens on a Unix socket in a private host directory (`<state-dir>/sockets/<random>`, 0700, owned by the
 * sandbox user) bound at SANDBOX_SOCKET_DIR in its own sandbox only (docs/local-backend.md "Network").
 */
export class UnixSocketEndpoints implements AgentEndpoints {
  private dir: string;
  /** A private directory under the temp dir, used when the state dir is too long (removed at close). */
  private fallback?: string;

  constructor(
    private readonly socketsDir: string,
    private readonly owner?: SandboxUser,
    private readonly tempRoot: () => string = tmpdir,
    private readonly bound = true,
  ) {
    this.dir = socketsDir;
  }

  async prepare(): Promise<void> {
    if (!fits(this.socketsDir)) {
      // A long home or a stdio session's state dir (`…/stdio/<63-char id>`) easily passes 107 bytes: the sockets
      // then live in a fresh 0700 directory under the temp dir, which only this server knows about.
      const temp = this.tempRoot();
      const root = fits(join(temp, 'cli-mcp-XXXXXX')) ? temp : '/tmp';
      this.fallback = await mkdtemp(join(root, 'cli-mcp-'));
      this.dir = this.fallback;
      return;
    }
    // Sandboxes die with their server: sockets left by an earlier run belong to nobody.
    await rm(this.socketsDir, { recursive: true, force: true });
    await mkdir(this.socketsDir, { mode: 0o700 });
  }

  async allocate(): Promise<AgentEndpoint> {
    const dir = join(this.dir, randomBytes(8).toString('hex'));
    await mkdir(dir, { mode: 0o700 });
    if (this.owner) await chown(dir, this.owner.uid, this.owner.gid);
    return {
      env: { SANDBOX_AGENT_SOCKET: this.bound ? `${SANDBOX_SOCKET_DIR}/${SOCKET_FILE}` : join(dir, SOCKET_FILE) },
      socketDir: dir,
      urlFor: (line) => (line === 'unix' ? `${UNIX_URL_PREFIX}${join(dir, SOCKET_FILE)}` : undefined),
      release: () => rm(dir, { recursive: true, force: true }),
    };
  }

  async close(): Promise<void> {
    if (this.fallback) await rm(this.fallback, { recursive: true, force: true });
  }
}

function socketPathBytes(socketsDir: string): number {
  return Buffer.byteLength(join(socketsDir, 'x'.repeat(16), SOCKET_FILE));
}

function fits(socketsDir: string): boolean {
  return socketPathBytes(socketsDir) <= MAX_SOCKET_PATH_BYTES;
}
