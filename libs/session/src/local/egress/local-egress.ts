import { createWriteStream, type WriteStream } from 'node:fs';
import { chmod } from 'node:fs/promises';
import type { Server } from 'node:net';
import {
  dummyKubeconfig, EgressGateway, jsonLineSink, kubeconfigRoutes, Routes, RuntimeCa, type ConnectionContext, type Dialer, type EgressMetrics, type Resolver, type RouteSpec,
} from '@cli-mcp/egress';
import { SessionError, SessionErrorCode } from '../../session-error.js';
import { EGRESS_SOCKET_SUFFIX } from '../agent-endpoint.js';
import type { HostFs } from '../host-fs.js';
import type { LocalEgressConfig } from '../local-backend.options.js';
import type { EgressReport, LocalEgress, SandboxEgress } from './local-egress.port.js';
import { RELAY_URL, sandboxEgressEnv, SYSTEM_CA_BUNDLES } from './sandbox-egress-env.js';

export interface LocalEgressDeps {
  config: LocalEgressConfig;
  /** Binds a listening socket in the server's own sockets directory (agent-endpoint.ts `bindListener`). */
  bindListener(suffix: string): Promise<{ server: Server; path: string }>;
  hostFs: HostFs;
  metrics?: EgressMetrics;
  resolver?: Resolver;
  dialer?: Dialer;
}

/** The audit's and metrics' `instance` of a local server (the Kubernetes gateway names its CliMcpInstance). */
const INSTANCE = 'local';

/**
 * Starts the gateway of a `--local-network proxy` server (docs/egress.md "Local backend"): a runtime CA made now
 * (its key never leaves this process), the routes from `--egress-allow` and `--egress-kubeconfig`, the audit file.
 * Each sandbox then gets its own listening socket, bound here and mounted read-only into it: the socket it
 * connects through is its identity, so nothing a client sends can claim another session (C-EGR-1).
 */
export async function startLocalEgress(deps: LocalEgressDeps): Promise<LocalEgress> {
  const { config } = deps;
  const specs: RouteSpec[] = [
    ...config.allow.map((authority): RouteSpec => ({ kind: 'allow', authority })),
    ...(config.kubeconfig ? kubeconfigRoutes(config.kubeconfig.config, config.kubeconfig.path) : []),
  ];
  const routes = new Routes(specs);
  const [ca, systemBundle, audit] = await Promise.all([RuntimeCa.generate('cli-mcp local egress gateway'), readSystemBundle(deps.hostFs), openAudit(config.auditLog)]);
  const gateway = new EgressGateway({
    routes, ca, resolver: deps.resolver, dialer: deps.dialer, metrics: deps.metrics,
    audit: audit ? jsonLineSink((line) => audit.write(line)) : undefined,
  });
  const kubeconfig = config.kubeconfig ? dummyKubeconfig(config.kubeconfig.config, config.kubeconfig.path, ca.certPem, { proxyUrl: RELAY_URL }) : undefined;
  const given = sandboxEgressEnv({ gatewayCaPem: ca.certPem, systemBundle, kubeconfig });
  const report: EgressReport = {
    routes: routes.all().map((route) => `${route.target.key} (${route.kind === 'kubernetes' ? 'kubernetes, credential injected' : 'allow'})`),
    audit_log: config.auditLog ?? 'off',
  };
  return new GatewaySockets(gateway, deps.bindListener, audit, { ...given, sandboxEnv: given.env, report });
}

class GatewaySockets implements LocalEgress {
  readonly sandboxEnv: LocalEgress['sandboxEnv'];
  readonly agentEnv: LocalEgress['agentEnv'];
  readonly files: LocalEgress['files'];
  readonly report: EgressReport;
  private readonly sockets = new Set<GatewaySocket>();

  constructor(
    private readonly gateway: EgressGateway,
    private readonly bind: LocalEgressDeps['bindListener'],
    private readonly audit: WriteStream | undefined,
    given: Pick<LocalEgress, 'sandboxEnv' | 'agentEnv' | 'files' | 'report'>,
  ) {
    ({ sandboxEnv: this.sandboxEnv, agentEnv: this.agentEnv, files: this.files, report: this.report } = given);
  }

  async open(): Promise<SandboxEgress> {
    const { server, path } = await this.bind(EGRESS_SOCKET_SUFFIX);
    // connect() needs write permission on the socket; a root server's sandboxes run as 65534. Nobody else reaches
    // it: the directory is this server's, 0700, and the sandbox sees only its own socket, mounted read-only.
    await chmod(path, 0o666).catch(async (error: unknown) => {
      await new Promise((resolve) => server.close(resolve));
      throw error;
    });
    const socket = new GatewaySocket(this.gateway, server, path, () => this.sockets.delete(socket));
    this.sockets.add(socket);
    return socket;
  }

  async revoke(sessionId: string): Promise<void> {
    // First the gateway: its open connections are cut and new requests refused at once; then the listener.
    this.gateway.revoke(sessionId);
    await Promise.all([...this.sockets].filter((socket) => socket.sessionId === sessionId).map((socket) => socket.close()));
  }

  async close(): Promise<void> {
    // The gateway first: it destroys every connection it holds, which the listeners' close then need not wait for.
    await this.gateway.close();
    await Promise.all([...this.sockets].map((socket) => socket.close()));
    await new Promise<void>((resolve) => (this.audit ? this.audit.end(() => resolve()) : resolve()));
  }
}

class GatewaySocket implements SandboxEgress {
  private context?: ConnectionContext;
  private closing?: Promise<void>;

  constructor(private readonly gateway: EgressGateway, private readonly server: Server, readonly hostPath: string, private readonly onClose: () => void) {
    // Unassigned (a warm sandbox): the gateway refuses the connection as belonging to no session.
    gateway.attach(server, () => this.context);
  }

  get sessionId(): string | undefined {
    return this.context?.sessionId;
  }

  assign(sessionId: string): void {
    // An id can start again (reused after DELETE, or the next command after an idle reap); its earlier sandbox's
    // socket is closed by then, so only this sandbox can speak as it.
    this.gateway.admit(sessionId);
    this.context = { sessionId, instance: INSTANCE };
  }

  close(): Promise<void> {
    this.closing ??= new Promise<void>((resolve) => {
      this.onClose();
      this.server.close(() => resolve());
    });
    return this.closing;
  }
}

async function readSystemBundle(hostFs: HostFs): Promise<string | undefined> {
  for (const path of SYSTEM_CA_BUNDLES) {
    const text = await hostFs.readText(path);
    if (text?.includes('-----BEGIN CERTIFICATE-----')) return text;
  }
  return undefined;
}

/** The audit file, appended to and private; a path that cannot be opened stops the server, naming the flag. */
async function openAudit(path: string | undefined): Promise<WriteStream | undefined> {
  if (path === undefined) return undefined;
  const stream = createWriteStream(path, { flags: 'a', mode: 0o600 });
  await new Promise<void>((resolve, reject) => stream.once('open', () => resolve()).once('error', reject)).catch((error: NodeJS.ErrnoException) => {
    throw new SessionError(SessionErrorCode.SandboxUnavailable, `--egress-audit-log ${path} cannot be opened for appending: ${error.code ?? error.message}`);
  });
  // A write error later (disk full) must not end the server; the gateway goes on, the file misses lines.
  stream.on('error', () => undefined);
  return stream;
}
