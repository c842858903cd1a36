import { rm } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { dirname } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { KubeApi } from './api/kube-api.js';
import type { Clock } from './api/kube-time.js';
import { ObjectStore } from './api/object-store.js';
import { KubeApiError, Statuses } from './api/status.js';
import type { Status } from './api/types.js';
import type { WatchSession } from './api/watch-session.js';
import { FaultInjector, type FaultAction } from './http/faults.js';
import { parseRequest, type RequestInfo } from './http/request-info.js';
import { RequestLog, type RequestRecord } from './http/request-log.js';
import { route, type RawBody } from './http/router.js';
import { writeKubeconfig } from './kubeconfig.js';

/** Options of the fake API server. */
export interface FakeKubeServerOptions {
  /** Listen address. Default `127.0.0.1`. */
  host?: string;
  /** Listen port; 0 (default) picks a free one. */
  port?: number;
  /** When set, every request must carry `Authorization: Bearer <token>`, else 401 Unauthorized. */
  token?: string;
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
  /** `http://127.0.0.1:PORT`. */
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

class BodyTooLarge extends Error {}

/** Filter of `whenWatching`: resource plural, namespace, and/or only requests after sequence number `since`. */
export interface WatchFilter {
  resource?: string;
  namespace?: string;
  since?: number;
}

/**
 * A faithful in-process fake of the Kubernetes API server for pods, secrets and leases (stack-notes E.2), on plain
 * HTTP. Drive it with the real `@kubernetes/client-node` or `kubectl`; inspect `requests`, inject `faults`,
 * and reach the registry directly through `api`/`store`.
 */
export class FakeKubeServer {
  readonly store: ObjectStore;
  readonly api: KubeApi;
  readonly faults = new FaultInjector();
  readonly requests = new RequestLog();
  /** Open watch streams and the request that opened each. */
  private readonly watches = new Map<WatchSession, RequestRecord>();
  private watchWaiters: { filter: (record: RequestRecord) => boolean; resolve: (record: RequestRecord) => void }[] = [];
  private server?: Server;
  /** Directories this server made for kubeconfigs written without a path; removed by `stop()`. */
  private readonly kubeconfigDirs: string[] = [];
  private address?: AddressInfo;
  private kubeconfigPath?: string;
  private readonly startedAt = new Date();

  constructor(private readonly options: FakeKubeServerOptions = {}) {
    this.store = new ObjectStore({ eventWindow: options.watchEventWindow });
    this.api = new KubeApi(this.store, { clock: options.clock });
  }

  /** `http://HOST:PORT` (after `start()`). */
  get url(): string {
    if (!this.address) throw new Error('FakeKubeServer is not started');
    return `http://${this.address.address}:${this.address.port}`;
  }

  get port(): number {
    if (!this.address) throw new Error('FakeKubeServer is not started');
    return this.address.port;
  }

  /** Number of watch streams currently open. */
  get openWatches(): number {
    return this.watches.size;
  }

  async start(startOptions: StartOptions = {}): Promise<FakeKubeServerHandle> {
    if (this.server) throw new Error('FakeKubeServer already started');
    const server = createServer((req, res) => {
      this.handle(req, res).catch((error: unknown) => {
        if (!res.headersSent) this.sendStatus(res, internalError(error));
        else res.destroy();
      });
    });
    this.server = server;
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
   * Writes a kubeconfig for this server (token = the server's token, if any) and returns its absolute path. Without
   * `path` it goes into a temp directory of its own, which `stop()` removes.
   */
  async writeKubeconfig(path?: string, namespace?: string): Promise<string> {
    const written = await writeKubeconfig({ server: this.url, token: this.options.token, namespace }, path);
    if (path === undefined) this.kubeconfigDirs.push(dirname(written));
    return written;
  }

  /**
   * Resolves with the request of an open watch stream matching `filter` (e.g. `{ resource: 'pods' }`), as soon as
   * one is open: lets a test wait until a client is actually watching, without sleeping. Rejects after
   * `timeoutMs` (default 10 000).
   */
  whenWatching(filter: WatchFilter = {}, timeoutMs = 10_000): Promise<RequestRecord> {
    const matches = (r: RequestRecord): boolean =>
      (filter.resource === undefined || r.resource === filter.resource) &&
      (filter.namespace === undefined || r.namespace === filter.namespace) &&
      (filter.since === undefined || r.seq > filter.since);
    const open = [...this.watches.values()].find(matches);
    if (open) return Promise.resolve(open);
    return new Promise((resolveWait, reject) => {
      const waiter = {
        filter: matches,
        resolve: (record: RequestRecord) => {
          clearTimeout(timer);
          resolveWait(record);
        },
      };
      const timer = setTimeout(() => {
        this.watchWaiters = this.watchWaiters.filter((w) => w !== waiter);
        reject(new Error(`no watch matching ${JSON.stringify(filter)} opened within ${timeoutMs} ms`));
      }, timeoutMs);
      this.watchWaiters.push(waiter);
    });
  }

  /** Ends every open watch stream (cleanly, or by destroying the connections when `abrupt`). Returns how many. */
  cutWatches(options: { abrupt?: boolean } = {}): number {
    const open = [...this.watches.keys()];
    for (const session of open) session.close(options.abrupt ?? false);
    return open.length;
  }

  /** Drops the watch event log, so resuming from any earlier resourceVersion answers 410 Expired. */
  compactWatchLog(): void {
    this.store.compact();
  }

  async stop(): Promise<void> {
    const server = this.server;
    if (!server) return;
    this.server = undefined;
    this.cutWatches({ abrupt: true });
    const closed = new Promise<void>((resolveClose) => server.close(() => resolveClose()));
    server.closeAllConnections();
    await closed;
    for (const dir of this.kubeconfigDirs.splice(0)) await rm(dir, { recursive: true, force: true });
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const info = parseRequest(req.method ?? 'GET', req.url ?? '/');
    let body: RawBody;
    try {
      body = { text: await this.readBody(req), contentType: req.headers['content-type'] };
    } catch (error) {
      if (error instanceof BodyTooLarge) this.sendStatus(res, Statuses.requestTooLarge('limit is 3145728').status);
      else res.destroy();
      return;
    }
    const record = this.log(info, body, req.headers['user-agent']);
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
        this.sendStatus(res, fault.respond.status, fault.respond.headers);
        return;
      }
    }
    try {
      this.authorize(req);
      this.checkAccept(req);
      const result = route({ api: this.api, store: this.store, serverAddress: `${this.address?.address}:${this.port}`, bookmarkIntervalMs: this.options.bookmarkIntervalMs ?? 1000, startedAt: this.startedAt }, info, body);
      if (result.type === 'watch') this.streamWatch(res, result.session, record, fault);
      else if (result.type === 'text') {
        res.writeHead(result.code, { 'Content-Type': 'text/plain; charset=utf-8' });
        res.end(result.body);
      } else this.sendJson(res, result.code, result.body);
    } catch (error) {
      if (error instanceof KubeApiError) this.sendStatus(res, error.status, error.headers);
      else this.sendStatus(res, internalError(error));
    }
  }

  private log(info: RequestInfo, body: RawBody, userAgent: string | undefined): RequestRecord {
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
      userAgent,
      body: parsed,
      verb: info.verb,
      resource: isResource ? (target.subresource ? `${target.def.plural}/${target.subresource}` : target.def.plural) : undefined,
      namespace: isResource ? target.namespace : undefined,
      name: isResource ? target.name : undefined,
    });
  }

  private streamWatch(res: ServerResponse, session: WatchSession, record: RequestRecord, fault?: FaultAction): void {
    res.writeHead(200, { 'Content-Type': 'application/json', 'Cache-Control': 'no-cache, private', 'Transfer-Encoding': 'chunked' });
    res.flushHeaders();
    record.status = 200;
    this.watches.set(session, record);
    const done = (): void => {
      this.watches.delete(session);
    };
    res.once('close', () => {
      done();
      session.close();
    });
    session.start({
      send: (event) => {
        if (!res.writableEnded && !res.destroyed) res.write(`${JSON.stringify(event)}\n`);
      },
      close: (abrupt) => {
        done();
        if (abrupt) res.destroy();
        else if (!res.writableEnded) res.end();
      },
    });
    this.watchWaiters = this.watchWaiters.filter((waiter) => {
      if (!session.open || !waiter.filter(record)) return true;
      waiter.resolve(record);
      return false;
    });
    if (fault?.cutWatchAfterMs !== undefined) {
      const timer = setTimeout(() => session.close(), fault.cutWatchAfterMs);
      res.once('close', () => clearTimeout(timer));
    }
  }

  private authorize(req: IncomingMessage): void {
    const token = this.options.token;
    if (token === undefined) return;
    if (req.headers.authorization !== `Bearer ${token}`) throw Statuses.unauthorized();
  }

  /** 406 when the client accepts nothing this JSON-only server can produce. */
  private checkAccept(req: IncomingMessage): void {
    const accept = req.headers.accept;
    if (!accept) return;
    const types = accept.split(',').map((t) => t.split(';')[0]?.trim().toLowerCase());
    if (!types.some((t) => t === 'application/json' || t === '*/*' || t === 'application/*')) throw Statuses.notAcceptable();
  }

  private readBody(req: IncomingMessage): Promise<string> {
    const limit = this.options.maxBodyBytes ?? 3 * 1024 * 1024;
    return new Promise((resolveBody, reject) => {
      const chunks: Buffer[] = [];
      let size = 0;
      req.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > limit) {
          reject(new BodyTooLarge());
          req.removeAllListeners('data');
          req.resume();
          return;
        }
        chunks.push(chunk);
      });
      req.once('end', () => resolveBody(Buffer.concat(chunks).toString('utf8')));
      req.once('error', reject);
    });
  }

  private sendJson(res: ServerResponse, code: number, body: unknown, headers: Record<string, string> = {}): void {
    if (res.headersSent) {
      res.destroy();
      return;
    }
    const text = JSON.stringify(body);
    res.writeHead(code, { 'Content-Type': 'application/json', 'Cache-Control': 'no-cache, private', 'Content-Length': Buffer.byteLength(text), ...headers });
    res.end(text);
  }

  private sendStatus(res: ServerResponse, status: Status, headers: Record<string, string> = {}): void {
    this.sendJson(res, status.code ?? 500, status, headers);
  }
}

function internalError(error: unknown): Status {
  const message = error instanceof Error ? error.message : String(error);
  return { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: `Internal error occurred: ${message}`, reason: 'InternalError', details: { causes: [{ message }] }, code: 500 };
}
