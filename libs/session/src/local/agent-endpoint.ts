import { randomBytes } from 'node:crypto';
import { chown, mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { UNIX_URL_PREFIX } from '@cli-mcp/agent-client';
import { SessionError, SessionErrorCode } from '../session-error.js';
import type { SandboxNetworkMode, SandboxUser } from './bwrap-command.js';
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
}

/** A sandbox with its own network namespace cannot be reached over TCP: its agent listens on a Unix socket. */
export function agentEndpoints(network: SandboxNetworkMode, stateDir: string, owner?: SandboxUser): AgentEndpoints {
  return network === 'host' ? new LoopbackEndpoints() : new UnixSocketEndpoints(join(stateDir, 'sockets'), owner);
}

/** `--local-network host`: the agent listens on a free loopback port it reports on its ready fd. */
export class LoopbackEndpoints implements AgentEndpoints {
  prepare(): Promise<void> {
    return Promise.resolve();
  }

  allocate(): Promise<AgentEndpoint> {
    return Promise.resolve({
      env: {},
      urlFor: (line) => {
        const port = Number(line);
        return Number.isInteger(port) && port > 0 && port < 65_536 ? `http://127.0.0.1:${port}` : undefined;
      },
      release: () => Promise.resolve(),
    });
  }
}

/**
 * `--local-network isolated|none`: the sandbox has its own network namespace, so this server's loopback is out of
 * its reach — and the agent's TCP port out of ours. The agent listens on a Unix socket in a private host directory
 * (`<state-dir>/sockets/<random>`, 0700, owned by the sandbox user) bound at SANDBOX_SOCKET_DIR in the sandbox only
 * (docs/local-backend.md "Network").
 */
export class UnixSocketEndpoints implements AgentEndpoints {
  constructor(private readonly socketsDir: string, private readonly owner?: SandboxUser) {}

  async prepare(): Promise<void> {
    const longest = join(this.socketsDir, 'x'.repeat(16), SOCKET_FILE);
    if (Buffer.byteLength(longest) > MAX_SOCKET_PATH_BYTES) {
      throw new SessionError(
        SessionErrorCode.SandboxUnavailable,
        `--state-dir ${this.socketsDir.slice(0, -'/sockets'.length)} is too long for Unix-socket agents (--local-network isolated or none): agent ` +
          `sockets under it would need ${Buffer.byteLength(longest)} bytes, Unix sockets allow ${MAX_SOCKET_PATH_BYTES}; use a shorter --state-dir`,
      );
    }
    // Sandboxes die with their server: sockets left by an earlier run belong to nobody.
    await rm(this.socketsDir, { recursive: true, force: true });
    await mkdir(this.socketsDir, { mode: 0o700 });
  }

  async allocate(): Promise<AgentEndpoint> {
    const dir = join(this.socketsDir, randomBytes(8).toString('hex'));
    await mkdir(dir, { mode: 0o700 });
    if (this.owner) await chown(dir, this.owner.uid, this.owner.gid);
    return {
      env: { SANDBOX_AGENT_SOCKET: `${SANDBOX_SOCKET_DIR}/${SOCKET_FILE}` },
      socketDir: dir,
      urlFor: (line) => (line === 'unix' ? `${UNIX_URL_PREFIX}${join(dir, SOCKET_FILE)}` : undefined),
      release: () => rm(dir, { recursive: true, force: true }),
    };
  }
}
