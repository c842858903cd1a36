import { CoreV1Api, ListWatch, Watch, type KubeConfig, type V1Pod, type V1PodList } from '@kubernetes/client-node';
import { KubeRequestMetrics } from '@cli-mcp/kube';
import { errorText, type Clock } from '@cli-mcp/common';
import { sendKubeRequest } from '@cli-mcp/kube/client-node';
import type { Registry } from 'prom-client';
import type { ControllerLogger } from '../controller-logger.js';
import { Backoff } from '@cli-mcp/common';
import type { PodChange, PodInformer } from '@cli-mcp/kube';

const NOT_LISTED = 'pods not listed yet';

export interface ListWatchPodInformerOptions {
  kubeConfig: KubeConfig;
  namespace: string;
  labelSelector: string;
  registry: Registry;
  clock: Clock;
  random: () => number;
  logger: ControllerLogger;
}

/**
 * `PodInformer` on client-node's `ListWatch` (list + watch from the list's resourceVersion; re-watch from the
 * last resourceVersion when a stream ends; re-list on 410 Expired). `ListWatch` stops for good on any other
 * error (stack-notes C): here every error restarts it after a back-off with jitter (1 s … 30 s), so a cut
 * connection or an API outage heals without a process restart. A restart resumes the watch from the last
 * resourceVersion, so no event is lost unless the server's window passed (then 410 → re-list, and the re-list
 * reports the pods that went away as deletions).
 */
export class ListWatchPodInformer implements PodInformer {
  private readonly listWatch: ListWatch<V1Pod>;
  private readonly metrics: KubeRequestMetrics;
  private readonly backoff: Backoff;
  private readonly changeListeners = new Set<(change: PodChange) => void>();
  private readonly stateListeners = new Set<() => void>();
  private readonly last = new Map<string, V1Pod>();
  private syncedValue = false;
  private problemValue: string | undefined = NOT_LISTED;
  private stopping = false;
  /** A list answered; ListWatch applies it to its cache before it opens the next watch. */
  private justListed = false;
  private cancelRestart?: () => void;

  constructor(private readonly options: ListWatchPodInformerOptions) {
    this.metrics = new KubeRequestMetrics(options.registry);
    this.backoff = new Backoff({ initialMs: 1000, maxMs: 30_000, random: options.random });
    const core = options.kubeConfig.makeApiClient(CoreV1Api);
    const path = `/api/v1/namespaces/${encodeURIComponent(options.namespace)}/pods`;
    const list = (): Promise<V1PodList> =>
      sendKubeRequest(this.metrics, { verb: 'list', resource: 'pods', signal: AbortSignal.timeout(30_000) }, (o) =>
        core.listNamespacedPod({ namespace: options.namespace, labelSelector: options.labelSelector }, o),
      ).then((result) => {
        this.healthy();
        this.justListed = true;
        return result;
      });
    this.listWatch = new ListWatch<V1Pod>(path, new ObservedWatch(options.kubeConfig, this), list, false, options.labelSelector);
    this.listWatch.on('add', (pod) => this.emit('added', pod));
    this.listWatch.on('update', (pod) => this.emit('updated', pod));
    this.listWatch.on('delete', (pod) => this.emit('deleted', pod));
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

  pods(): V1Pod[] {
    return [...this.listWatch.list(this.options.namespace)];
  }

  onChange(listener: (change: PodChange) => void): () => void {
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
    if (this.problemValue !== NOT_LISTED) this.options.logger.info('pod list/watch restored');
    this.problemValue = undefined;
    this.notifyState();
  }

  /** @internal Counted once per watch request. */
  countWatch(code: string): void {
    this.metrics.record('watch', 'pods', code);
  }

  private emit(type: PodChange['type'], pod: V1Pod): void {
    const name = pod.metadata?.name ?? '';
    const previous = this.last.get(name);
    if (type === 'deleted') this.last.delete(name);
    else this.last.set(name, pod);
    const change: PodChange = previous ? { type, pod, previous } : { type, pod };
    for (const listener of this.changeListeners) listener(change);
  }

  private failed(error: unknown): void {
    if (this.stopping) return; // stop() aborts the stream, which ListWatch reports as an error
    const delayMs = this.backoff.next();
    const message = errorText(error);
    if (this.problemValue === undefined || this.problemValue === NOT_LISTED) {
      this.options.logger.warn('pod list/watch failed; retrying with back-off', { error: message, retry_in_ms: Math.round(delayMs) });
    }
    this.problemValue = `pod list/watch failing: ${message}`;
    this.notifyState();
    this.cancelRestart = this.options.clock.schedule(delayMs, () => {
      if (!this.stopping) void this.listWatch.start();
    });
  }

  /** @internal A watch is about to open: after a list, the cache now holds the listed pods. */
  beforeWatch(): void {
    if (!this.justListed) return;
    this.justListed = false;
    this.syncedValue = true;
    this.notifyState();
  }

  private notifyState(): void {
    for (const listener of this.stateListeners) listener();
  }
}

/**
 * client-node's `Watch`, told when a watch request got its 200 (the returned promise resolves after the response
 * arrived; an error has called `done` before that) and counted in `cli_mcp_kube_requests_total`.
 */
class ObservedWatch extends Watch {
  constructor(
    config: KubeConfig,
    private readonly informer: ListWatchPodInformer,
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
