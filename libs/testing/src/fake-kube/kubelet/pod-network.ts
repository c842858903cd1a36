import { connect, createServer, type Server, type Socket } from 'node:net';
import type { ObjectStore } from '../api/object-store.js';
import { isJsonObject } from '../api/types.js';

/** Where a Service's traffic goes: one ready endpoint address and port. */
export interface ServiceEndpoint {
  host: string;
  port: number;
}

/** `<service>.<namespace>.svc[.cluster.local]:<port>`: the Service addresses a pod may be given. */
const SERVICE_ADDRESS = /\b([a-z0-9]([-a-z0-9]*[a-z0-9])?)\.([a-z0-9]([-a-z0-9]*[a-z0-9])?)\.svc(?:\.cluster\.local)?:(\d{1,5})\b/g;

/**
 * The first ready endpoint of Service `name` in `namespace`, from its EndpointSlices (label
 * `kubernetes.io/service-name`), with the slice's port: the fake has no Service port → targetPort mapping, so a
 * slice names the one port every Service port of it leads to.
 */
export function serviceEndpoint(store: ObjectStore, namespace: string, name: string): ServiceEndpoint | undefined {
  for (const slice of store.list('endpointslices', namespace)) {
    if (slice.metadata.labels?.['kubernetes.io/service-name'] !== name) continue;
    const port = (Array.isArray(slice['ports']) ? slice['ports'] : []).find((p) => isJsonObject(p) && typeof p['port'] === 'number');
    if (!isJsonObject(port)) continue;
    for (const endpoint of Array.isArray(slice['endpoints']) ? slice['endpoints'] : []) {
      if (!isJsonObject(endpoint) || !Array.isArray(endpoint['addresses']) || typeof endpoint['addresses'][0] !== 'string') continue;
      const conditions = isJsonObject(endpoint['conditions']) ? endpoint['conditions'] : {};
      if (conditions['ready'] === false) continue;
      return { host: endpoint['addresses'][0], port: port['port'] as number };
    }
  }
  return undefined;
}

/**
 * A pod's view of cluster Services, standing in for cluster DNS plus kube-proxy. The pod's processes are host
 * processes, so a Service name resolves nowhere: `rewrite` replaces each Service address in what the pod is given
 * (env values, mounted ConfigMap data) with `<pod IP>:<service port>`. While the Service has a ready endpoint,
 * the kubelet listens there and forwards each connection to that endpoint FROM THE POD'S IP (`localAddress`), so
 * the endpoint sees the pod's source address as it would through a CNI and kube-proxy — what the egress gateway
 * attributes sessions by (C-EGR-6). Without a ready endpoint nothing listens, so a client's connect is refused at
 * once, as kube-proxy REJECTs traffic to a Service without endpoints (a listener that accepted and then closed would
 * make kubectl retry for 15–55 s on EOF or reset). The listeners follow the EndpointSlices in the store.
 * Not enforced (no network namespace): a pod process may still connect anywhere on the host, from any 127/8
 * address; tests that need NetworkPolicy semantics must assert the policy, not the fake's network.
 */
export class PodNetwork {
  private readonly wanted = new Map<number, { namespace: string; name: string }>();
  private readonly servers = new Map<number, Server>();
  private readonly sockets = new Set<Socket>();
  private chain: Promise<void> = Promise.resolve();
  private unsubscribe?: () => void;
  private closed = false;

  constructor(
    readonly ip: string,
    private readonly store: ObjectStore,
  ) {}

  /** `value` with every Service address replaced by the pod's local stand-in for it. */
  rewrite(value: string): string {
    return value.replace(SERVICE_ADDRESS, (match, name: string, _a, namespace: string, _b, port: string) => {
      const number = Number(port);
      const known = this.wanted.get(number);
      // One listener per port: a second Service on the same port is left unresolved rather than misrouted.
      if (number < 1 || number > 65535 || (known && (known.name !== name || known.namespace !== namespace))) return match;
      this.wanted.set(number, { namespace, name });
      return `${this.ip}:${port}`;
    });
  }

  /**
   * Starts following the endpoints of every Service `rewrite` replaced so far; resolves once the listeners match
   * them (call before the pod's processes start).
   */
  open(): Promise<void> {
    this.unsubscribe ??= this.store.subscribe((event) => {
      if (event.resource === 'endpointslices') this.sync().catch(() => undefined);
    });
    return this.sync();
  }

  async close(): Promise<void> {
    this.closed = true;
    this.unsubscribe?.();
    for (const socket of this.sockets) socket.destroy();
    await this.sync();
  }

  private sync(): Promise<void> {
    this.chain = this.chain.catch(() => undefined).then(() => this.reconcile());
    return this.chain;
  }

  private async reconcile(): Promise<void> {
    for (const [port, service] of this.wanted) {
      const up = !this.closed && serviceEndpoint(this.store, service.namespace, service.name) !== undefined;
      const server = this.servers.get(port);
      if (up && !server) await this.listen(port, service.namespace, service.name);
      if (!up && server) {
        // Open connections stay, as conntrack keeps established flows; new ones are refused.
        this.servers.delete(port);
        await new Promise<void>((done) => server.close(() => done()));
      }
    }
  }

  private async listen(port: number, namespace: string, name: string): Promise<void> {
    const server = createServer((client) => this.forward(client, namespace, name));
    await new Promise<void>((resolveListen, reject) => {
      server.once('error', reject);
      server.listen({ host: this.ip, port, exclusive: true }, () => resolveListen());
    });
    this.servers.set(port, server);
  }

  private forward(client: Socket, namespace: string, name: string): void {
    const endpoint = serviceEndpoint(this.store, namespace, name);
    if (!endpoint) return void client.resetAndDestroy();
    const upstream = connect({ host: endpoint.host, port: endpoint.port, localAddress: this.ip });
    for (const socket of [client, upstream]) {
      this.sockets.add(socket);
      socket.once('close', () => this.sockets.delete(socket));
      socket.on('error', () => (client.destroy(), upstream.destroy()));
    }
    client.pipe(upstream).pipe(client);
  }
}
