import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, rename, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { UNIX_URL_PREFIX } from '@cli-mcp/agent-client';
/** Linux keeps at most 107 bytes of a socket path (sun_path). */
export const MAX_SOCKET_PATH_BYTES = 107;

/** How one sandbox agent is reached: what it is told, the descriptor it inherits, the URL its ready line yields. */
export interface AgentEndpoint {
  /** Added to the agent's environment. */
  readonly env: Readonly<Record<string, string>>;
  /** A listening socket the agent inherits as LISTEN_FD (this process's descriptor number). */
  readonly listenFd?: number;
  /** The agent URL for its ready line (`unix`); undefined when the line is not what was expected. */
  urlFor(readyLine: string): string | undefined;
  /** Once the agent process holds the socket: this process stops listening on it (it must not accept). */
  handedOver(): Promise<void>;
  /** Removes what the endpoint left on the host (after the agent exited). */
  release(): Promise<void>;
}

/** Makes one endpoint per agent start. */
export interface AgentEndpoints {
  /** Once at start-up: checks and cleans what earlier servers left. Throws a SessionError naming the flag. */
  prepare(): Promise<void>;
  allocate(): Promise<AgentEndpoint>;
  /**
   * A listening socket this server keeps, at a fresh path beside the agents' (no sandbox sees the directory):
   * the egress gateway's per-sandbox socket (docs/egress.md). Closing the server removes the path.
   */
  bindListener?(suffix: string): Promise<{ server: Server; path: string }>;
  /** At shutdown: removes what `prepare` made outside the state dir. */
  close?(): Promise<void>;
}

/** The descriptor the agent finds its listening socket on: the first after its ready pipe (process-launcher.ts). */
export const LISTEN_FD = 4;

/**
 * Every local agent is reached over a Unix socket (issue 11) that **this server** binds, in a 0700 directory of
 * its own that no sandbox sees, and hands to the agent as an open descriptor at spawn (issue 22). Earlier the
 * agent bound it in a directory mounted writable into its sandbox, so a command could replace `agent.sock` with
 * a symlink to a host socket and the server would send `POST /exec` with the bearer there. Now no path the
 * sandbox can change leads from the server to its agent, with or without bubblewrap.
 */
export function agentEndpoints(stateDir: string): AgentEndpoints {
  return new UnixSocketEndpoints(join(stateDir, 'sockets'), tmpdir);
}

export class UnixSocketEndpoints implements AgentEndpoints {
  private dir: string;
  /** A private directory under the temp dir, used when the state dir is too long (removed at close). */
  private fallback?: string;

  constructor(private readonly socketsDir: string, private readonly tempRoot: () => string = tmpdir) {
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
    const name = randomBytes(8).toString('hex');
    const path = join(this.dir, `${name}${SOCKET_SUFFIX}`);
    // Bound under a draft name: closing our copy of a listening socket unlinks the path it was bound to (libuv),
    // so the socket is renamed into place before that.
    const draft = join(this.dir, `${name}.bind`);
    const listener = createServer();
    await new Promise<void>((resolve, reject) => listener.once('error', reject).listen(draft, resolve));
    const fd = (listener as unknown as { _handle?: { fd?: number } })._handle?.fd;
    const handedOver = async (): Promise<void> => {
      await rename(draft, path).catch(() => undefined);
      await new Promise<void>((resolve) => listener.close(() => resolve()));
    };
    if (fd === undefined || fd < 0) {
      await handedOver();
      throw new Error('this Node.js does not expose the descriptor of a listening socket');
    }
    return {
      env: { SANDBOX_AGENT_LISTEN_FD: String(LISTEN_FD) },
      listenFd: fd,
      urlFor: (line) => (line === 'unix' ? `${UNIX_URL_PREFIX}${path}` : undefined),
      handedOver,
      release: async () => {
        if (listener.listening) await handedOver();
        await rm(path, { force: true });
      },
    };
  }

  async bindListener(suffix: string): Promise<{ server: Server; path: string }> {
    const path = join(this.dir, `${randomBytes(8).toString('hex')}${suffix}`);
    const server = createServer();
    await new Promise<void>((resolve, reject) => server.once('error', reject).listen(path, resolve));
    return { server, path };
  }

  async close(): Promise<void> {
    if (this.fallback) await rm(this.fallback, { recursive: true, force: true });
  }
}

const SOCKET_SUFFIX = '.sock';
/** The longest name a socket in the directory gets (the egress gateway's, `bindListener`). */
export const EGRESS_SOCKET_SUFFIX = '.egress.sock';

function fits(socketsDir: string): boolean {
  return Buffer.byteLength(join(socketsDir, `${'x'.repeat(16)}${EGRESS_SOCKET_SUFFIX}`)) <= MAX_SOCKET_PATH_BYTES;
}
