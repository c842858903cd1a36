import type { Client } from 'undici';

type ClientClass = typeof Client;

/**
 * undici, loaded on the first call rather than with the library: a server that has no session yet (a pod waiting
 * for its first client) does not pay its ≈ 6 MB of idle RSS (issue 22 item 6), and a laptop server pays it once, in
 * the same first call that starts an agent (tens of ms) — the import is a few ms of that.
 */
let undici: Promise<ClientClass> | undefined;
let LoadedClient: ClientClass | undefined;
function loadUndici(): Promise<ClientClass> {
  // undici is CommonJS: `default` is its module.exports both under Node's own import() and in the ESM bundle,
  // whose chunk exports only that default (scripts/bundle-nest-app.mjs).
  undici ??= import('undici').then((module) => (LoadedClient = (module as unknown as { default: { Client: ClientClass } }).default.Client));
  return undici;
}

/** Local agents without network listen on a Unix socket, named `unix:<absolute path>`; others by `http://…`. */
export const UNIX_URL_PREFIX = 'unix:';

// An agent serves one command at a time; a few idle connections cover exec + output + cancel side by side.
const MAX_IDLE_PER_AGENT = 16;

/** One undici `Client` is one connection (pipelining 1), so a call owns it and knows whether it was reused. */
interface Connection {
  readonly client: Client;
  readonly endpoint: Endpoint;
  /** Sockets this client opened: a change during a call means the call went out on a new one. */
  sockets: number;
  /** The socket closed (agent idle timeout, exit, our keep-alive timeout): never pooled again. */
  gone: boolean;
}

/** Where one agent listens, and its connections. */
interface Endpoint {
  readonly key: string;
  readonly origin: string;
  readonly socketPath?: string;
  /** Path of the base URL before the call's path (`http://host:port/prefix`); '' for an origin. */
  readonly prefix: string;
  readonly all: Set<Connection>;
  /** Most recently released last (LIFO: warm sockets first, the rest reach their idle timeout). */
  readonly idle: Connection[];
}

/** A connection held by one call. */
export interface Lease {
  readonly client: Client;
  readonly path: string;
  /** Taken from the idle list (it carried an earlier request) and still on that socket. */
  reused(): boolean;
}

interface HeldLease extends Lease {
  readonly connection: Connection;
}

/**
 * The agent client's connections, per agent (per HTTP origin or Unix socket path). Nothing outlives its use: a
 * connection whose socket closes while idle is closed and dropped, and an agent with no connection left is
 * forgotten — so a server that talks to thousands of sandboxes over its life keeps only live ones (docs/server.md,
 * "Agent connections"). undici's Pool would pool too, but does not tell a call whether it got a reused socket, which
 * the stale-socket retry needs.
 */
export class AgentConnections {
  private readonly endpoints = new Map<string, Endpoint>();

  /** Undefined once connections can be made; until then, the load of undici to await before `acquire`. */
  ready(): Promise<unknown> | undefined {
    return LoadedClient === undefined ? loadUndici() : undefined;
  }

  /** A connection for one call: the newest idle one of that agent, or (always, when `fresh`) a new one. */
  acquire(baseUrl: string, path: string, fresh: boolean): Lease {
    const endpoint = this.endpoints.get(baseUrl) ?? this.addEndpoint(baseUrl);
    const pooled = fresh ? undefined : endpoint.idle.pop();
    const connection = pooled ?? this.connect(endpoint);
    const sockets = connection.sockets;
    const lease: HeldLease = {
      client: connection.client,
      path: `${endpoint.prefix}${path}`,
      connection,
      reused: () => pooled !== undefined && connection.sockets === sockets,
    };
    return lease;
  }

  /** The call got its whole response: keep the connection for the next call unless its socket is gone. */
  release(lease: Lease): void {
    const { connection } = lease as HeldLease;
    const { endpoint } = connection;
    if (connection.gone || connection.client.destroyed || endpoint.idle.length >= MAX_IDLE_PER_AGENT) this.drop(connection);
    else endpoint.idle.push(connection);
  }

  /** Aborted, timed out, over the size cap or failed: destroy the socket (the agent cancels on disconnect). */
  discard(lease: Lease): void {
    this.drop((lease as HeldLease).connection);
  }

  /** Agents with at least one connection (open, idle or connecting). */
  get agents(): number {
    return this.endpoints.size;
  }

  /** Destroys every connection, idle or busy (shutdown). */
  close(): void {
    for (const endpoint of [...this.endpoints.values()]) for (const connection of [...endpoint.all]) this.drop(connection);
  }

  private addEndpoint(baseUrl: string): Endpoint {
    const base = baseUrl.startsWith(UNIX_URL_PREFIX)
      ? { origin: 'http://localhost', socketPath: baseUrl.slice(UNIX_URL_PREFIX.length), prefix: '' }
      : originOf(baseUrl);
    const endpoint: Endpoint = { key: baseUrl, ...base, all: new Set(), idle: [] };
    this.endpoints.set(baseUrl, endpoint);
    return endpoint;
  }

  private connect(endpoint: Endpoint): Connection {
    // No headers/body timeout: `/exec` lasts as long as its command (hours); control calls time themselves.
    if (LoadedClient === undefined) throw new Error('AgentConnections.acquire before ready()');
    const client = new LoadedClient(endpoint.origin, { socketPath: endpoint.socketPath, headersTimeout: 0, bodyTimeout: 0 });
    const connection: Connection = { client, endpoint, sockets: 0, gone: false };
    client.on('connect', () => (connection.sockets += 1));
    client.on('disconnect', () => {
      connection.gone = true;
      // Busy connections are dropped by their call; an idle one has nobody else to do it.
      if (endpoint.idle.includes(connection)) this.drop(connection);
    });
    endpoint.all.add(connection);
    return connection;
  }

  private drop(connection: Connection): void {
    const { endpoint } = connection;
    const at = endpoint.idle.indexOf(connection);
    if (at >= 0) endpoint.idle.splice(at, 1);
    endpoint.all.delete(connection);
    if (endpoint.all.size === 0 && this.endpoints.get(endpoint.key) === endpoint) this.endpoints.delete(endpoint.key);
    if (!connection.client.destroyed) connection.client.destroy().catch(() => undefined);
  }
}

function originOf(baseUrl: string): { origin: string; prefix: string } {
  const url = new URL(baseUrl);
  return { origin: url.origin, prefix: url.pathname === '/' ? '' : url.pathname.replace(/\/$/, '') };
}
