import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Server as NetServer, Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import type { AuditSink } from './audit.js';
import { handleConnect, type Tunnel } from './connect.js';
import { EgressError } from './errors.js';
import { forward } from './forward.js';
import { HeadDeadlines } from './head-deadline.js';
import { LeafCache, type LeafCacheOptions } from './leaf-cache.js';
import { noMetrics, type EgressMetrics } from './metrics.js';
import { plainTarget } from './plain.js';
import { Recorder, refuseResponse, refuseSocket, type ConnectionContext } from './record.js';
import { directDialer, systemResolver, type Dialer, type Resolver } from './resolver.js';
import type { Routes } from './routes.js';
import type { RuntimeCa } from './runtime-ca.js';
import { Sessions } from './sessions.js';
import { tunnelPath } from './tunnel-path.js';
import { UpstreamPool } from './upstream.js';

export interface GatewayLimits {
  /** Largest request head (request line + headers); 431 beyond. Default 16 KiB. */
  readonly maxHeaderBytes: number;
  /** Time to receive a request head; 408 and close beyond (slowloris). Default 10 s. */
  readonly headersTimeoutMs: number;
  /** An idle keep-alive connection or tunnel with no request in flight is closed after this. Default 60 s. */
  readonly idleMs: number;
  /** TCP + TLS connect to the upstream. Default 10 s. */
  readonly connectTimeoutMs: number;
  /** From `200 Connection Established` to a finished client handshake. Default 10 s. */
  readonly handshakeTimeoutMs: number;
  /** Open connections (tunnels included) one session may hold; 429 beyond, other sessions unaffected. Default 256. */
  readonly maxConnectionsPerSession: number;
}

export interface GatewayOptions {
  readonly routes: Routes;
  readonly ca: RuntimeCa;
  readonly resolver?: Resolver;
  readonly dialer?: Dialer;
  readonly audit?: AuditSink;
  readonly metrics?: EgressMetrics;
  readonly limits?: Partial<GatewayLimits>;
  readonly leaves?: LeafCacheOptions;
}

const DEFAULT_LIMITS: GatewayLimits = { maxHeaderBytes: 16_384, headersTimeoutMs: 10_000, idleMs: 60_000, connectTimeoutMs: 10_000, handshakeTimeoutMs: 10_000, maxConnectionsPerSession: 256 };

/**
 * The egress gateway core (C-EGR-2…7). It owns no listener: the caller hands it each accepted socket with the
 * session it belongs to (`handle`), or attaches it to a server of its own (`attach`), so identity comes from
 * where the connection arrived — a per-session Unix socket, a pod IP — never from anything the client sends.
 */
export class EgressGateway {
  readonly leaves: LeafCache;
  private readonly limits: GatewayLimits;
  private readonly recorder: Recorder;
  private readonly pool: UpstreamPool;
  private readonly sessions = new Sessions();
  private readonly contexts = new WeakMap<Duplex, ConnectionContext>();
  private readonly tunnels = new WeakMap<Duplex, Tunnel>();
  private readonly deadlines = new HeadDeadlines();
  private readonly outer: Server;
  private readonly inner: Server;

  constructor(private readonly options: GatewayOptions) {
    this.limits = { ...DEFAULT_LIMITS, ...options.limits };
    this.leaves = new LeafCache(options.ca, options.leaves);
    this.recorder = new Recorder(options.audit ?? (() => undefined), options.metrics ?? noMetrics);
    this.pool = new UpstreamPool(options.dialer ?? directDialer, this.limits.connectTimeoutMs);
    this.outer = this.httpServer((req, res) => this.onPlainRequest(req, res));
    // Nothing a client does may become an unhandled rejection: that would end the process, every session's egress.
    this.outer.on('connect', (req: IncomingMessage, socket: Socket, head: Buffer) => this.onConnect(req, socket, head).catch(() => socket.destroy()));
    this.inner = this.httpServer((req, res) => this.onTunnelRequest(req, res));
    // Leaves for every route host are minted now, in the background, so that no CONNECT waits for a mint
    // (C-EGR-8); the cache re-mints them before expiry on use. A failed mint is retried on its CONNECT.
    for (const route of options.routes.all()) this.leaves.context(route.target.host, route.target.ip !== null).catch(() => undefined);
    this.inner.on('connect', (req: IncomingMessage, socket: Socket) => this.refuseUpgrade(req, socket, this.tunnels.get(socket)?.context, 'method_refused'));
  }

  /** Serves one accepted connection on behalf of `context.sessionId`. */
  handle(socket: Socket, context: ConnectionContext): void {
    if (this.sessions.isRevoked(context.sessionId)) {
      return this.refuseConnection(socket, context, new EgressError('session_revoked', 'this session has ended; its egress is closed'));
    }
    if (this.sessions.count(context.sessionId) >= this.limits.maxConnectionsPerSession) {
      return this.refuseConnection(socket, context, new EgressError('too_many_connections', `this session already has ${this.limits.maxConnectionsPerSession} open connections`));
    }
    socket.setNoDelay(true);
    this.sessions.track(context.sessionId, socket);
    this.contexts.set(socket, context);
    this.deadlines.arm(socket, this.limits.headersTimeoutMs, true);
    this.outer.emit('connection', socket);
  }

  /** Serves every connection of `server`, attributing each with `contextOf` (e.g. a pod-IP lookup). */
  attach(server: NetServer, contextOf: (socket: Socket) => ConnectionContext | undefined): void {
    server.on('connection', (socket: Socket) => {
      const context = contextOf(socket);
      if (context) this.handle(socket, context);
      else this.refuseConnection(socket, { sessionId: '', instance: '' }, new EgressError('not_allowed', 'this connection belongs to no session'));
    });
  }

  /** Ends a session's egress (C-EGR-6): its open connections are closed now and new ones refused. */
  revoke(sessionId: string): void {
    this.sessions.revoke(sessionId);
  }

  /**
   * Accepts a revoked session id again, for a new sandbox of that session (the local backend: an id reused after
   * DELETE, an idle-reaped session's next command). Only for callers whose identity is a new listener per sandbox,
   * so nothing of the ended sandbox can reach the gateway as this id any more.
   */
  admit(sessionId: string): void {
    this.sessions.admit(sessionId);
  }

  async close(): Promise<void> {
    this.sessions.closeAll();
    this.pool.close();
    await Promise.all([this.outer, this.inner].map((server) => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    })));
  }

  /** A connection refused before any request is read: still one audit record (C-EGR-7). */
  private refuseConnection(socket: Socket, context: ConnectionContext, error: EgressError): void {
    this.recorder.record(context, performance.now(), { method: '', host: '', path: '', status: error.status, bytes: 0, reason: error.code, route: 'none', credentialInjected: false });
    refuseSocket(socket, error);
  }

  private httpServer(onRequest: (req: IncomingMessage, res: ServerResponse) => void): Server {
    const { maxHeaderBytes, headersTimeoutMs, idleMs } = this.limits;
    // headersTimeout/requestTimeout are enforced only on listening servers; HeadDeadlines does it here.
    const server = createServer({
      maxHeaderSize: maxHeaderBytes,
      headersTimeout: headersTimeoutMs,
      requestTimeout: 0,
      keepAliveTimeout: idleMs,
    }, (req, res) => {
      // A complete head: no deadline while the request and its response (a watch may last hours) are under way.
      this.deadlines.disarm(req.socket);
      res.once('finish', () => this.deadlines.arm(req.socket, idleMs, false));
      onRequest(req, res);
    });
    server.on('upgrade', (req: IncomingMessage, socket: Socket) => {
      this.deadlines.disarm(socket);
      this.refuseUpgrade(req, socket, this.contextOf(req.socket), 'upgrade_refused');
    });
    server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) => this.onClientError(error, socket));
    return server;
  }

  private contextOf(socket: Duplex): ConnectionContext | undefined {
    return this.contexts.get(socket) ?? this.tunnels.get(socket)?.context;
  }

  private async onConnect(req: IncomingMessage, socket: Socket, head: Buffer): Promise<void> {
    this.deadlines.disarm(socket);
    const context = this.contexts.get(socket);
    if (!context) return void socket.destroy();
    await handleConnect({
      routes: this.options.routes, resolver: this.options.resolver ?? systemResolver, leaves: this.leaves, recorder: this.recorder,
      handshakeTimeoutMs: this.limits.handshakeTimeoutMs, isRevoked: (id) => this.sessions.isRevoked(id),
      warm: (destination) => this.pool.warm(destination, this.limits.idleMs),
      open: (stream, tunnel) => {
        this.tunnels.set(stream, tunnel);
        this.deadlines.arm(stream, this.limits.headersTimeoutMs, true);
        this.inner.emit('connection', stream);
      },
    }, req, socket, head, context);
  }

  private onTunnelRequest(req: IncomingMessage, res: ServerResponse): void {
    const tunnel = this.tunnels.get(req.socket);
    if (!tunnel) return void res.destroy();
    const path = tunnelPath(req.url ?? '', tunnel);
    if (path instanceof EgressError) return this.refuseRequest(req, res, tunnel.context, path, tunnel.destination.route.target.key, tunnel.destination.route.kind);
    forward(req, res, path, { ...tunnel, isRevoked: () => this.sessions.isRevoked(tunnel.context.sessionId) }, this.pool, this.recorder);
  }

  private onPlainRequest(req: IncomingMessage, res: ServerResponse): void {
    const context = this.contexts.get(req.socket);
    if (!context) return void res.destroy();
    void plainTarget(req.url ?? '', this.options.routes, this.options.resolver ?? systemResolver).then((found) => {
      if (found instanceof EgressError) return this.refuseRequest(req, res, context, found, found.details.host ?? (req.url ?? '').slice(0, 300), 'none');
      forward(req, res, found.path, { context, destination: found.destination, isRevoked: () => this.sessions.isRevoked(context.sessionId) }, this.pool, this.recorder);
    }).catch(() => res.destroy());
  }

  private refuseRequest(req: IncomingMessage, res: ServerResponse, context: ConnectionContext, error: EgressError, host: string, route: 'allow' | 'kubernetes' | 'none'): void {
    const path = (req.url ?? '').replace(/[?#].*$/, '').slice(0, 2000);
    this.recorder.record(context, performance.now(), { method: req.method ?? '', host, path, status: error.status, bytes: 0, reason: error.code, route, credentialInjected: false });
    refuseResponse(res, error);
  }

  private refuseUpgrade(req: IncomingMessage, socket: Duplex, context: ConnectionContext | undefined, code: 'upgrade_refused' | 'method_refused'): void {
    const error = code === 'upgrade_refused'
      ? new EgressError(code, 'Upgrade (WebSocket, SPDY, h2c) is not allowed through the egress gateway')
      : new EgressError(code, 'CONNECT inside a tunnel is not allowed');
    const tunnel = this.tunnels.get(socket);
    if (context) this.recorder.record(context, performance.now(), { method: req.method ?? '', host: tunnel?.destination.route.target.key ?? '', path: (req.url ?? '').replace(/[?#].*$/, ''), status: error.status, bytes: 0, reason: code, route: tunnel?.destination.route.kind ?? 'none', credentialInjected: false });
    refuseSocket(socket, error);
  }

  private onClientError(error: NodeJS.ErrnoException, socket: Duplex): void {
    const code = error.code === 'HPE_HEADER_OVERFLOW' ? 431 : error.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? 408 : 400;
    const context = this.contextOf(socket);
    if (context) this.recorder.record(context, performance.now(), { method: '', host: this.tunnels.get(socket)?.destination.route.target.key ?? '', path: '', status: code, bytes: 0, reason: 'bad_request', route: 'none', credentialInjected: false });
    const phrase = code === 431 ? 'Request Header Fields Too Large' : code === 408 ? 'Request Timeout' : 'Bad Request';
    if (socket.writable) socket.end(`HTTP/1.1 ${code} ${phrase}\r\nconnection: close\r\ncontent-length: 0\r\n\r\n`);
    socket.destroy();
  }
}
