import { rm } from 'node:fs/promises';
import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { isIP, type AddressInfo } from 'node:net';
import { dirname } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import type { PemPair } from '@cli-mcp/egress';
import { builtinResources } from './api/builtin-resources.js';
import { CrdController } from './api/crd/crd-controller.js';
import { GarbageCollector } from './api/garbage-collector.js';
import { KubeApi } from './api/kube-api.js';
import type { Clock } from './api/kube-time.js';
import { ObjectStore } from './api/object-store.js';
import { ResourceRegistry } from './api/resource-registry.js';
import { KubeApiError, Statuses } from './api/status.js';
import { assertCertificateUsername, Authenticator, bearerToken, type FakeUserSpec } from './http/authn.js';
import { ClusterTls } from './http/cluster-tls.js';
import { FaultInjector } from './http/faults.js';
import { BodyTooLarge, checkAccept, DEFAULT_MAX_BODY_BYTES, internalError, readBody, sendJson, sendStatus } from './http/http-io.js';
import { parseRequest, type RequestInfo } from './http/request-info.js';
import { RequestLog, type RequestRecord } from './http/request-log.js';
import { route, type RawBody } from './http/router.js';
import { wantsTable } from './http/table.js';
import { WatchStreams, type WatchFilter } from './http/watch-streams.js';
import { writeKubeconfig, type KubeconfigOptions } from './kubeconfig.js';

export type { WatchFilter } from './http/watch-streams.js';

/** Options of the fake API server. */
export interface FakeKubeServerOptions {
  /** Listen address. Default `127.0.0.1`. */
  host?: string;
  /** Listen port; 0 (default) picks a free one. */
  port?: number;
  /**
   * HTTPS with a serving CA generated at start, like every real API server: the kubeconfig it writes carries the
   * CA as `certificate-authority-data`. Default: on when `users` is given (identity tests: kubectl sends no
   * bearer token over plain HTTP), else off — plain HTTP (`insecure-skip-tls-verify`), because client-node 1.4
   * makes a new https.Agent per request, so every request pays a full TLS handshake (~16 ms instead of ~4 ms
   * per request here), which made lease-timing tests flaky on a loaded machine (docs/fake-kube.md).
   */
  tls?: boolean;
  /**
   * The bearer token the written kubeconfig carries. Without `users` it is also the only token accepted, as user
   * `fake-kube-admin` (group `system:masters`); with `users` it must be one of its tokens.
   */
  token?: string;
  /**
   * Token → user table (a static token file). When set (or `token` is), every request must authenticate with a
   * token of the table or a client certificate from `issueClientCertificate` — 401 Unauthorized otherwise. Unset:
   * authentication is off (requests are served as `system:anonymous` or their certificate's user).
   */
  users?: Record<string, FakeUserSpec>;
  /**
   * Users allowed to impersonate (`Impersonate-User`/`-Group`/`-Uid`, kubectl `--as`/`--as-group`); others get 403.
   * Default: everyone (the fake has no RBAC), so a test sees a request that impersonated as that user.
   */
  impersonators?: string[];
  /** Watch events retained for resuming from a resourceVersion; older start points get 410. Default 10 000. */
  watchEventWindow?: number;
  /** Interval of BOOKMARK events for watches with `allowWatchBookmarks=true`. Default 1000 ms; 0 disables. */
  bookmarkIntervalMs?: number;
  /** Clock for server-set timestamps. */
  clock?: Clock;
  /** Largest accepted request body. Default 3 MiB (the real server's limit). */
  maxBodyBytes?: number;
}

/** What `start()` returns. */
export interface FakeKubeServerHandle {
  /** `http://127.0.0.1:PORT` (`https://` with TLS). */
  url: string;
  port: number;
  /** Set when `start({ kubeconfig })` wrote one. */
  kubeconfigPath?: string;
  stop(): Promise<void>;
}

/** Options of `start()`. */
export interface StartOptions {
  /** Write a kubeconfig: `true` → in a temp dir; a string → at that path. */
  kubeconfig?: boolean | string;
  /** Default namespace of the written kubeconfig's context. */
  namespace?: string;
}

/** What a kubeconfig written by `writeKubeconfig` may change from the server's default one. */
export type KubeconfigOverrides = Partial<Pick<KubeconfigOptions, 'server' | 'token' | 'clientCertificate' | 'name'>>;

const ADMIN: FakeUserSpec = { username: 'fake-kube-admin', groups: ['system:masters'] };

/**
 * A faithful in-process fake of the Kubernetes API server (stack-notes E.2), on HTTP, or HTTPS with its own CA.
 * Drive it with the real `@kubernetes/client-node`, `kubectl` or python3-kubernetes; inspect `requests` (each with
 * the user who made it), inject `faults`, and reach the registry directly through `api`/`store`.
 */
export class FakeKubeServer {
  readonly store: ObjectStore;
  readonly api: KubeApi;
  /** Served resources: the built-in kinds and those of each CustomResourceDefinition. */
  readonly registry = new ResourceRegistry(builtinResources());
  private readonly crds: CrdController;
  private readonly gc: GarbageCollector;
  readonly faults = new FaultInjector();
  readonly requests = new RequestLog();
  private readonly watches = new WatchStreams();
  private readonly authenticator: Authenticator;
  private readonly kubeconfigToken?: string;
  private server?: Server;
  private tls?: ClusterTls;
  /** Directories this server made for kubeconfigs written without a path; removed by `stop()`. */
  private readonly kubeconfigDirs: string[] = [];
  private address?: AddressInfo;
  private kubeconfigPath?: string;
  private readonly startedAt = new Date();

  constructor(private readonly options: FakeKubeServerOptions = {}) {
    this.store = new ObjectStore({ eventWindow: options.watchEventWindow });
    this.api = new KubeApi(this.store, { clock: options.clock });
    this.crds = new CrdController(this.api, this.store, this.registry, options.clock);
    this.crds.start();
    this.gc = new GarbageCollector(this.api, this.store, this.registry);
    this.gc.start();
    const { token, users } = options;
    if (token !== undefined && users !== undefined && !(token in users)) throw new Error('FakeKubeServer: `token` must be one of the tokens of `users`');
    this.authenticator = new Authenticator(users ?? (token === undefined ? undefined : { [token]: ADMIN }), options.impersonators);
    this.kubeconfigToken = token ?? (users ? Object.keys(users)[0] : undefined);
  }

  /** `http://HOST:PORT` (`https://` with TLS), after `start()`. */
  get url(): string {
    if (!this.address) throw new Error('FakeKubeServer is not started');
    const host = this.certificateHost();
    return `${this.tls ? 'https' : 'http'}://${isIP(host) === 6 ? `[${host}]` : host}:${this.address.port}`;
  }

  get port(): number {
    if (!this.address) throw new Error('FakeKubeServer is not started');
    return this.address.port;
  }

  /** The serving CA (PEM) clients must trust; undefined without TLS or before `start()`. */
  get caPem(): string | undefined {
    return this.tls?.caPem;
  }

  /** Number of watch streams currently open. */
  get openWatches(): number {
    return this.watches.size;
  }

  async start(startOptions: StartOptions = {}): Promise<FakeKubeServerHandle> {
    if (this.server) throw new Error('FakeKubeServer already started');
    const handler = (req: IncomingMessage, res: ServerResponse): void => {
      this.handle(req, res).catch((error: unknown) => {
        if (!res.headersSent) sendStatus(res, internalError(error));
        else res.destroy();
      });
    };
    if (this.options.tls ?? this.options.users !== undefined) {
      this.tls = await ClusterTls.generate(this.certificateHost());
      // Client certificates are asked for, not required (token clients send none), and verified against the
      // client CA only; an unverified one simply authenticates nobody (x509 authenticator, then tokens).
      this.server = createHttpsServer(
        { cert: this.tls.serving.cert, key: this.tls.serving.key, ca: [this.tls.clientCaPem], requestCert: true, rejectUnauthorized: false, minVersion: 'TLSv1.2' },
        handler,
      );
    } else this.server = createHttpServer(handler);
    const server = this.server;
    await new Promise<void>((resolveListen, reject) => {
      server.once('error', reject);
      server.listen(this.options.port ?? 0, this.options.host ?? '127.0.0.1', () => resolveListen());
    });
    this.address = server.address() as AddressInfo;
    if (startOptions.kubeconfig) {
      this.kubeconfigPath = await this.writeKubeconfig(
        typeof startOptions.kubeconfig === 'string' ? startOptions.kubeconfig : undefined,
        startOptions.namespace,
      );
    }
    return { url: this.url, port: this.port, kubeconfigPath: this.kubeconfigPath, stop: () => this.stop() };
  }

  /**
   * Writes a kubeconfig for this server and returns its absolute path: the server's URL and CA, the configured
   * token, or what `overrides` says (another server URL — e.g. a proxy in front —, token, or a client certificate
   * from `issueClientCertificate`). Without `path` it goes into a temp directory of its own, which `stop()` removes.
   */
  async writeKubeconfig(path?: string, namespace?: string, overrides: KubeconfigOverrides = {}): Promise<string> {
    const token = overrides.token ?? (overrides.clientCertificate ? undefined : this.kubeconfigToken);
    const written = await writeKubeconfig(
      { server: overrides.server ?? this.url, certificateAuthority: this.caPem, token, clientCertificate: overrides.clientCertificate, name: overrides.name, namespace },
      path,
    );
    if (path === undefined) this.kubeconfigDirs.push(dirname(written));
    return written;
  }

  /**
   * A client certificate (chain + key, PEM) signed by the server's client CA: the server authenticates it as
   * `username` (CN; groups `system:authenticated`), before any bearer token, as kube-apiserver's x509 authenticator
   * does. Needs TLS.
   */
  async issueClientCertificate(username: string): Promise<PemPair> {
    if (!this.tls) throw new Error('FakeKubeServer.issueClientCertificate needs TLS (started with `tls: true` or `users`)');
    assertCertificateUsername(username);
    return this.tls.issueClientCertificate(username);
  }

  /**
   * Resolves with the request of an open watch stream matching `filter` (e.g. `{ resource: 'pods' }`), as soon as
   * one is open: lets a test wait until a client is actually watching, without sleeping. Rejects after
   * `timeoutMs` (default 10 000).
   */
  whenWatching(filter: WatchFilter = {}, timeoutMs = 10_000): Promise<RequestRecord> {
    return this.watches.whenWatching(filter, timeoutMs);
  }

  /** Ends every open watch stream (cleanly, or by destroying the connections when `abrupt`). Returns how many. */
  cutWatches(options: { abrupt?: boolean } = {}): number {
    return this.watches.cut(options.abrupt ?? false);
  }

  /** Drops the watch event log, so resuming from any earlier resourceVersion answers 410 Expired. */
  compactWatchLog(): void {
    this.store.compact();
  }

  async stop(): Promise<void> {
    const server = this.server;
    if (!server) return;
    this.server = undefined;
    this.crds.stop();
    this.gc.stop();
    this.cutWatches({ abrupt: true });
    const closed = new Promise<void>((resolveClose) => server.close(() => resolveClose()));
    server.closeAllConnections();
    await closed;
    for (const dir of this.kubeconfigDirs.splice(0)) await rm(dir, { recursive: true, force: true });
  }

  /** The name the serving certificate is for, and the URL's host: the listen address (loopback for a wildcard). */
  private certificateHost(): string {
    const host = this.options.host ?? '127.0.0.1';
    if (host === '0.0.0.0') return '127.0.0.1';
    if (host === '::') return '::1';
    return host;
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const info = parseRequest(req.method ?? 'GET', req.url ?? '/', this.registry);
    let body: RawBody;
    try {
      body = { text: await readBody(req, this.options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES), contentType: req.headers['content-type'] };
    } catch (error) {
      if (error instanceof BodyTooLarge) sendStatus(res, Statuses.requestTooLarge(`limit is ${DEFAULT_MAX_BODY_BYTES}`).status);
      else res.destroy();
      return;
    }
    const record = this.log(info, body, req);
    res.once('finish', () => (record.status ??= res.statusCode));
    const fault = this.faults.take(info.method, info.path, info.query.toString(), info.verb === 'watch');
    if (fault) {
      record.faulted = true;
      if (fault.delayMs > 0) await delay(fault.delayMs);
      if (fault.hold) await fault.hold().catch(() => undefined);
      if (fault.dropConnection) {
        req.socket.destroy();
        return;
      }
      if (fault.respond) {
        sendStatus(res, fault.respond.status, fault.respond.headers);
        return;
      }
    }
    try {
      const { user, credential, impersonatedBy } = this.authenticator.authenticate(req);
      Object.assign(record, { user: user.username, groups: user.groups, credential }, impersonatedBy === undefined ? {} : { impersonatedBy });
      checkAccept(req);
      const context = {
        api: this.api,
        store: this.store,
        registry: this.registry,
        asTable: wantsTable(req.headers.accept),
        serverAddress: `${this.address?.address}:${this.port}`,
        bookmarkIntervalMs: this.options.bookmarkIntervalMs ?? 1000,
        startedAt: this.startedAt,
        user,
      };
      const result = route(context, info, body);
      if (result.type === 'watch') this.watches.stream(res, result.session, record, fault, result.encode);
      else if (result.type === 'text') {
        res.writeHead(result.code, { 'Content-Type': 'text/plain; charset=utf-8' });
        res.end(result.body);
      } else sendJson(res, result.code, result.body, result.headers);
    } catch (error) {
      if (error instanceof KubeApiError) sendStatus(res, error.status, error.headers);
      else sendStatus(res, internalError(error));
    }
  }

  private log(info: RequestInfo, body: RawBody, req: IncomingMessage): RequestRecord {
    let parsed: unknown;
    if (body.text !== '') {
      try {
        parsed = JSON.parse(body.text);
      } catch {
        parsed = body.text;
      }
    }
    const target = info.target;
    const isResource = target.type === 'resource';
    return this.requests.record({
      timestamp: Date.now(),
      method: info.method,
      path: info.path,
      query: Object.fromEntries(info.query.entries()),
      contentType: body.contentType,
      userAgent: req.headers['user-agent'],
      host: req.headers.host,
      bearerToken: bearerToken(req),
      body: parsed,
      verb: info.verb,
      resource: isResource ? (target.subresource ? `${target.def.plural}/${target.subresource}` : target.def.plural) : target.type === 'selfsubjectreview' ? 'selfsubjectreviews' : undefined,
      namespace: isResource ? target.namespace : undefined,
      name: isResource ? target.name : undefined,
    });
  }
}
