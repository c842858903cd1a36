import { createServer, connect, type AddressInfo, type Server, type Socket } from 'node:net';
import { Registry } from 'prom-client';
import type { AuditRecord } from '../src/audit.js';
import { EgressGateway, type GatewayOptions } from '../src/gateway.js';
import { PromEgressMetrics } from '../src/metrics.js';
import type { Resolver } from '../src/resolver.js';
import { Routes, type RouteSpec } from '../src/routes.js';
import { RuntimeCa } from '../src/runtime-ca.js';

/** Names the test resolver answers; nothing else resolves, so no outside name is ever looked up. */
export type NameTable = Record<string, string[]>;

export interface TestGateway {
  readonly gateway: EgressGateway;
  readonly ca: RuntimeCa;
  readonly port: number;
  readonly audit: AuditRecord[];
  readonly registry: Registry;
  /** Every (address, port) the gateway dialled. */
  readonly dialled: string[];
  close(): Promise<void>;
}

/**
 * A gateway on 127.0.0.1:0 for session `s1`. `dial` maps the fake public addresses the resolver hands out to the
 * loopback test servers; an address missing from it fails, so no outside address is ever contacted.
 */
export async function startGateway(options: {
  routes: RouteSpec[];
  names?: NameTable;
  dial?: Record<string, number>;
  sessionId?: string;
  limits?: GatewayOptions['limits'];
}): Promise<TestGateway> {
  const ca = await RuntimeCa.generate('test gateway CA');
  const audit: AuditRecord[] = [];
  const dialled: string[] = [];
  const registry = new Registry();
  const resolver: Resolver = async (host) => {
    const found = options.names?.[host];
    if (!found) throw Object.assign(new Error(`test resolver: ${host} unknown`), { code: 'ENOTFOUND' });
    return found;
  };
  const gateway = new EgressGateway({
    routes: new Routes(options.routes),
    ca,
    resolver,
    dialer: (address, port) => {
      dialled.push(`${address}:${port}`);
      const local = options.dial?.[`${address}:${port}`];
      if (local === undefined) throw Object.assign(new Error(`test dialer: ${address}:${port} is not a test server`), { code: 'ECONNREFUSED' });
      return connect({ host: '127.0.0.1', port: local, noDelay: true });
    },
    audit: (record) => audit.push(record),
    metrics: new PromEgressMetrics(registry),
    limits: options.limits,
  });
  const server: Server = createServer();
  const sockets = new Set<Socket>();
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  gateway.attach(server, () => ({ sessionId: options.sessionId ?? 's1', instance: 'test' }));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    gateway, ca, audit, registry, dialled,
    port: (server.address() as AddressInfo).port,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await gateway.close();
    },
  };
}
