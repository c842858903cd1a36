import { ListWatch, Watch, type KubeConfig, type KubernetesListObject, type KubernetesObject } from '@kubernetes/client-node';
import { KubeRequestMetrics, type KubeResource } from './kube-request-metrics.js';
import { Backoff, errorText, type Clock } from '@cli-mcp/common';
import { sendKubeRequest, type KubeRequestOptions } from './client-node-request.js';
import type { Registry } from 'prom-client';
import type { InformerLogger, ObjectChange, ObjectInformer } from './object-informer.port.js';

export interface ListWatchInformerOptions<T extends KubernetesObject> {
  kubeConfig: KubeConfig;
  namespace: string;
  /** The collection's path (`/api/v1/namespaces/<ns>/pods`, `/apis/apps/v1/namespaces/<ns>/deployments`). */
  path: string;
  /** `cli_mcp_kube_requests_total{resource}` of its list and watch requests. */
  resource: KubeResource;
  /** How log lines and `problem` name it (`pod list/watch failing: …`); default the resource. */
  noun?: string;
  labelSelector?: string;
  /** One list request (client-node's generated method), sent with the options given (abort, counting). */
  list: (labelSelector: string | undefined, options: KubeRequestOptions) => Promise<KubernetesListObject<T>>;
  registry: Registry;
  clock: Clock;
  random: () => number;
  logger: InformerLogger;
}

/**
 * `ObjectInformer` on client-node's `ListWatch` (list + watch from the list's resourceVersion; re-watch from the
 * last resourceVersion when a stream ends; re-list on 410 Expired). `ListWatch` stops for good on any other
 * error (stack-notes C): here every error restarts it after a back-off with jitter (1 s … 30 s), so a cut
 * connection or an API outage heals without a process restart. A restart resumes the watch from the last
 * resourceVersion, so no event is lost unless the server's window passed (then 410 → re-list, and the re-list
 * reports the objects that went away as deletions). No periodic re-list: the socket keep-alive (30 s, set by
 * client-node) detects a dead peer.
 */
export class ListWatchInformer<T extends KubernetesObject> implements ObjectInformer<T> {
  private readonly listWatch: ListWatch<T>;
  private readonly metrics: KubeRequestMetrics;
  private readonly backoff: Backoff;
  private readonly notListed: string;
  private readonly noun: string;
  private readonly changeListeners = new Set<(change: ObjectChange<T>) => void>();
  private readonly stateListeners = new Set<() => void>();
  private readonly last = new Map<string, T>();
  private syncedValue = false;
  private problemValue: string | undefined;
  private stopping = false;
  /** A list answered; ListWatch applies it to its cache before it opens the next watch. */
  private justListed = false;
  private cancelRestart?: () => void;

  constructor(protected readonly options: ListWatchInformerOptions<T>) {
    this.metrics = new KubeRequestMetrics(options.registry);
    this.backoff = new Backoff({ initialMs: 1000, maxMs: 30_000, random: options.random });
    this.noun = options.noun ?? options.resource;
    this.notListed = `${options.resource} not listed yet`;
    this.problemValue = this.notListed;
    const list = (): Promise<KubernetesListObject<T>> =>
      sendKubeRequest(this.metrics, { verb: 'list', resource: options.resource, signal: AbortSignal.timeout(30_000) }, (o) => options.list(options.labelSelector, o)).then(
        (result) => {
          this.healthy();
          this.justListed = true;
          return result;
        },
      );
    this.listWatch = new ListWatch<T>(options.path, new ObservedWatch(options.kubeConfig, this), list, false, options.labelSelector);
    this.listWatch.on('add', (object) => this.emit('added', object));
    this.listWatch.on('update', (object) => this.emit('updated', object));
    this.listWatch.on('delete', (object) => this.emit('deleted', object));
    this.listWatch.on('error', (error) => this.failed(error));
  }

  get synced(): boolean {
    return this.syncedValue;
  }

  get problem(): string | undefined {
    return this.problemValue;
  }

  start(): void {
    this.stopping = false;
    void this.listWatch.start();
  }

  async stop(): Promise<void> {
    this.stopping = true;
    this.cancelRestart?.();
    await this.listWatch.stop();
  }

  objects(): T[] {
    return [...this.listWatch.list(this.options.namespace)];
  }

  get(name: string): T | undefined {
    return this.listWatch.get(name, this.options.namespace);
  }

  onObjectChange(listener: (change: ObjectChange<T>) => void): () => void {
    this.changeListeners.add(listener);
    return () => this.changeListeners.delete(listener);
  }

  onStateChange(listener: () => void): () => void {
    this.stateListeners.add(listener);
    return () => this.stateListeners.delete(listener);
  }

  /** @internal The watch answered 200 (or a list succeeded): the cache is live again. */
  healthy(): void {
    this.backoff.reset();
    if (this.problemValue === undefined) return;
    if (this.problemValue !== this.notListed) this.options.logger.info(`${this.noun} list/watch restored`);
    this.problemValue = undefined;
    this.notifyState();
  }

  /** @internal Counted once per watch request. */
  countWatch(code: string): void {
    this.metrics.record('watch', this.options.resource, code);
  }

  /** @internal A watch is about to open: after a list, the cache now holds the listed objects. */
  beforeWatch(): void {
    if (!this.justListed) return;
    this.justListed = false;
    this.syncedValue = true;
    this.notifyState();
  }

  private emit(type: ObjectChange<T>['type'], object: T): void {
    const name = object.metadata?.name ?? '';
    const previous = this.last.get(name);
    if (type === 'deleted') this.last.delete(name);
    else this.last.set(name, object);
    const change: ObjectChange<T> = previous ? { type, object, previous } : { type, object };
    for (const listener of this.changeListeners) listener(change);
  }

  private failed(error: unknown): void {
    if (this.stopping) return; // stop() aborts the stream, which ListWatch reports as an error
    const delayMs = this.backoff.next();
    const message = errorText(error);
    if (this.problemValue === undefined || this.problemValue === this.notListed) {
      this.options.logger.warn(`${this.noun} list/watch failed; retrying with back-off`, { error: message, retry_in_ms: Math.round(delayMs) });
    }
    this.problemValue = `${this.noun} list/watch failing: ${message}`;
    this.notifyState();
    this.cancelRestart = this.options.clock.schedule(delayMs, () => {
      if (!this.stopping) void this.listWatch.start();
    });
  }

  private notifyState(): void {
    for (const listener of this.stateListeners) listener();
  }
}

/**
 * client-node's `Watch`, told when a watch request got its 200 (the returned promise resolves after the response
 * arrived; an error has called `done` before that) and counted in `cli_mcp_kube_requests_total`.
 */
class ObservedWatch<T extends KubernetesObject> extends Watch {
  constructor(
    config: KubeConfig,
    private readonly informer: ListWatchInformer<T>,
  ) {
    super(config);
  }

  override async watch(
    path: string,
    query: Record<string, string | number | boolean | undefined>,
    callback: (phase: string, apiObj: unknown, watchObj?: unknown) => void,
    done: (err: unknown) => void,
  ): Promise<AbortController> {
    this.informer.beforeWatch();
    let ended = false;
    const controller = await super.watch(path, query, callback, (error) => {
      ended = true;
      done(error);
    });
    if (!ended) {
      this.informer.countWatch('200');
      this.informer.healthy();
    } else {
      this.informer.countWatch('error');
    }
    return controller;
  }
}
