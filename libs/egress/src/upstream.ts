import { Agent, type ClientRequestArgs } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { connect as tlsConnect, type ConnectionOptions } from 'node:tls';
import { isPublicAddress } from './address-policy.js';
import { EgressError } from './errors.js';
import type { Dialer, Resolver } from './resolver.js';
import type { Route } from './routes.js';

/** A route with the one address the gateway checked and will dial (C-EGR-3). */
export interface Destination {
  readonly route: Route;
  readonly address: string;
  readonly tls: boolean;
}

/**
 * Resolves the route's host with the injected resolver and checks every address: one non-public address refuses
 * the name (a rebinding name that answers both a public and a private address must not reach the private one).
 * Kubernetes routes are exempt, since API servers are often private (C-EGR-3). IP literals are checked as is.
 */
export async function resolveDestination(route: Route, resolver: Resolver, tls: boolean): Promise<Destination> {
  const { target } = route;
  let addresses: readonly string[];
  if (target.ip) addresses = [target.host];
  else {
    try {
      addresses = await resolver(target.host);
    } catch {
      throw new EgressError('resolve_failed', `${target.host} did not resolve`, { host: target.key });
    }
  }
  if (addresses.length === 0) throw new EgressError('resolve_failed', `${target.host} did not resolve`, { host: target.key });
  if (route.kind !== 'kubernetes') {
    const refused = addresses.find((address) => !isPublicAddress(address));
    if (refused !== undefined) {
      throw new EgressError('address_refused', `${target.key} resolves to ${refused}, a loopback, private, link-local or metadata address`, { host: target.key, address: refused });
    }
  }
  return { route, address: addresses[0], tls };
}

/** A keep-alive agent whose every connection goes to one checked address, TLS verified against the route. */
class DestinationAgent extends Agent {
  /** A connection opened ahead of the first request (see `warm`), handed to the first request that needs one. */
  private spare: Duplex | undefined;

  constructor(
    private readonly destination: Destination,
    private readonly dialer: Dialer,
    private readonly connectTimeoutMs: number,
  ) {
    super({ keepAlive: true, maxSockets: 256, maxFreeSockets: 32 });
  }

  // Node's Agent calls back itself when a socket is returned, so the callback is not used here.
  override createConnection(_options: ClientRequestArgs): Duplex {
    const spare = this.spare;
    this.spare = undefined;
    return spare && !spare.destroyed ? spare : this.open();
  }

  /**
   * Opens a connection while the client is still in its TLS handshake with the gateway, so the first request of
   * a new tunnel does not wait for the upstream's TCP and TLS handshakes in turn (C-EGR-8: first CONNECT). Only
   * when no idle connection exists; an unused spare closes after `unusedMs`.
   */
  warm(unusedMs: number): void {
    if (this.spare || Object.keys(this.freeSockets).length > 0) return;
    let spare: Duplex;
    try {
      spare = this.open();
    } catch {
      return;
    }
    this.spare = spare;
    spare.on('error', () => undefined);
    spare.once('close', () => this.spare === spare && (this.spare = undefined));
    setTimeout(() => this.spare === spare && spare.destroy(), unusedMs).unref();
  }

  private open(): Duplex {
    const { route, address, tls } = this.destination;
    const raw: Socket = this.dialer(address, route.target.port);
    // Under TLS the error surfaces on the TLS socket; the dialled one must not throw it a second time, uncaught.
    if (tls) raw.on('error', () => undefined);
    const socket = tls ? tlsConnect(tlsOptions(this.destination, raw)) : raw;
    const ready = tls ? 'secureConnect' : 'connect';
    const timer = setTimeout(() => socket.destroy(Object.assign(new Error('upstream connect timeout'), { code: 'ETIMEDOUT' })), this.connectTimeoutMs);
    socket.once(ready, () => clearTimeout(timer));
    socket.once('close', () => clearTimeout(timer));
    return socket;
  }

  override destroy(): void {
    this.spare?.destroy();
    super.destroy();
  }
}

function tlsOptions(destination: Destination, socket: Socket): ConnectionOptions {
  const { route } = destination;
  const { host, ip } = route.target;
  const credential = route.kind === 'kubernetes' && 'cert' in route.credential ? route.credential : undefined;
  return {
    socket,
    // The name verified against the upstream certificate is the route's, whatever address it was reached at.
    host,
    servername: ip ? undefined : host,
    // A Kubernetes route trusts only its kubeconfig's CA (C-EGR-5); `ca` replaces the system roots.
    ca: route.ca,
    cert: credential?.cert,
    key: credential?.key,
    ALPNProtocols: ['http/1.1'],
    minVersion: 'TLSv1.2',
  };
}

/** One agent per (route, address, scheme): warm connections are reused across tunnels and sessions. */
export class UpstreamPool {
  private readonly agents = new Map<string, DestinationAgent>();

  constructor(private readonly dialer: Dialer, private readonly connectTimeoutMs: number) {}

  /** Opens a connection for a tunnel's first request ahead of it (see DestinationAgent.warm). */
  warm(destination: Destination, unusedMs: number): void {
    (this.agent(destination) as DestinationAgent).warm(unusedMs);
  }

  agent(destination: Destination): Agent {
    const key = `${destination.route.target.key}|${destination.address}|${destination.tls}`;
    let agent = this.agents.get(key);
    if (!agent) {
      agent = new DestinationAgent(destination, this.dialer, this.connectTimeoutMs);
      this.agents.set(key, agent);
    }
    return agent;
  }

  close(): void {
    for (const agent of this.agents.values()) agent.destroy();
    this.agents.clear();
  }
}
