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
 * (env values, mounted ConfigMap data) with `<pod IP>:<service port>`, where `open` listens. Each connection there
 * is forwarded to the Service's current ready endpoint FROM THE POD'S IP (`localAddress`), so the endpoint sees the
 * pod's source address as it would through a CNI and kube-proxy — what the egress gateway attributes sessions by
 * (C-EGR-6). No endpoint: the connection is reset, as kube-proxy rejects a Service without endpoints.
 * Not enforced (no network namespace): a pod process may still connect anywhere on the host, from any 127/8
 * address; tests that need NetworkPolicy semantics must assert the policy, not the fake's network.
 */
export class PodNetwork {
  private readonly wanted = new Map<number, { namespace: string; name: string }>();
  private readonly servers: Server[] = [];
  private readonly sockets = new Set<Socket>();

  constructor(
    readonly ip: string,
    private readonly resolve: (namespace: string, name: string) => ServiceEndpoint | undefined,
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

  /** Listens for every Service address `rewrite` replaced so far (before the pod's processes start). */
  async open(): Promise<void> {
    for (const [port, service] of this.wanted) {
      if (this.servers.some((s) => (s.address() as { port: number } | null)?.port === port)) continue;
      const server = createServer((client) => this.forward(client, service.namespace, service.name));
      await new Promise<void>((resolveListen, reject) => {
        server.once('error', reject);
        server.listen({ host: this.ip, port, exclusive: true }, () => resolveListen());
      });
      this.servers.push(server);
    }
  }

  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await Promise.all(this.servers.splice(0).map((s) => new Promise<void>((done) => s.close(() => done()))));
  }

  private forward(client: Socket, namespace: string, name: string): void {
    const endpoint = this.resolve(namespace, name);
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
