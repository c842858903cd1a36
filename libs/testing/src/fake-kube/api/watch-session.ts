import { buildMatcher } from './list-query.js';
import type { ObjectStore, StoreEvent } from './object-store.js';
import type { ResourceDefinition } from './resources.js';
import { Statuses } from './status.js';
import type { KubeObject, Status, WatchEventType } from './types.js';
import { eventForWatcher } from './watch-filter.js';

/** Query options of a watch request. */
export interface WatchOptions {
  labelSelector?: string;
  fieldSelector?: string;
  /** unset/''/'0' → synthetic ADDED for current objects; N → every event after N. */
  resourceVersion?: string;
  timeoutSeconds?: number;
  allowWatchBookmarks?: boolean;
}

/** One line of the watch stream. */
export interface WireWatchEvent {
  type: WatchEventType;
  object: KubeObject | Status;
}

/** Where a watch session writes (the HTTP layer adapts it to a chunked response). */
export interface WatchSink {
  send(event: WireWatchEvent): void;
  /** Ends the stream: cleanly (timeout, 410, cut by a test), or by destroying the connection when `abrupt`. */
  close(abrupt: boolean): void;
}

/**
 * One watch: validates its options up front (so errors become a plain HTTP 4xx), then replays the requested
 * history, streams live changes with selector transitions, honours `timeoutSeconds` and sends BOOKMARKs.
 */
export class WatchSession {
  private readonly matches: (object: KubeObject) => boolean;
  private readonly startRv: number | undefined;
  private unsubscribe?: () => void;
  private timers: NodeJS.Timeout[] = [];
  private sink?: WatchSink;
  private lastSentRv = 0;
  private closed = false;

  constructor(
    private readonly store: ObjectStore,
    private readonly def: ResourceDefinition,
    private readonly namespace: string | undefined,
    private readonly options: WatchOptions,
    private readonly bookmarkIntervalMs: number,
  ) {
    this.matches = buildMatcher(def, namespace, options);
    const rv = options.resourceVersion;
    if (rv === undefined || rv === '' || rv === '0') this.startRv = undefined;
    else if (/^\d+$/.test(rv)) this.startRv = Number(rv);
    else throw Statuses.badRequest(`resourceVersion: Invalid value: ${JSON.stringify(rv)}: must be a valid resource version`);
  }

  /** Whether the stream is still open. */
  get open(): boolean {
    return !this.closed;
  }

  /** Starts streaming into `sink`. Replay and subscription happen in the same tick, so no event is lost. */
  start(sink: WatchSink): void {
    this.sink = sink;
    if (this.startRv === undefined) {
      for (const object of this.store.list(this.def.storage, this.namespace).filter(this.matches)) this.emit('ADDED', object);
    } else {
      const since = this.store.eventsSince(this.startRv);
      if (since.expired) {
        const expired = Statuses.expired(`too old resource version: ${this.startRv} (${since.oldest})`);
        sink.send({ type: 'ERROR', object: expired.status });
        this.close();
        return;
      }
      for (const event of since.events) this.deliver(event);
    }
    // Everything up to now has been replayed (or is older than the start point): bookmarks start from here.
    this.lastSentRv = Math.max(this.lastSentRv, this.store.resourceVersion);
    this.unsubscribe = this.store.subscribe((event) => this.deliver(event));
    const timeout = this.options.timeoutSeconds;
    if (timeout !== undefined && timeout > 0) this.timers.push(setTimeout(() => this.close(), timeout * 1000));
    if (this.options.allowWatchBookmarks && this.bookmarkIntervalMs > 0) {
      this.timers.push(setInterval(() => this.bookmark(), this.bookmarkIntervalMs));
    }
  }

  /** Sends a BOOKMARK now if the global resourceVersion moved past the last event this watcher saw. */
  bookmark(): void {
    if (this.closed || !this.sink || !this.options.allowWatchBookmarks) return;
    const rv = this.store.resourceVersion;
    if (rv <= this.lastSentRv) return;
    this.lastSentRv = rv;
    this.sink.send({ type: 'BOOKMARK', object: { kind: this.def.kind, apiVersion: this.def.apiVersion, metadata: { resourceVersion: String(rv) } } });
  }

  /** Ends the stream (idempotent); `abrupt` destroys the connection instead of ending the response. */
  close(abrupt = false): void {
    if (this.closed) return;
    this.closed = true;
    this.unsubscribe?.();
    for (const timer of this.timers) clearTimeout(timer);
    this.timers = [];
    this.sink?.close(abrupt);
  }

  private deliver(event: StoreEvent): void {
    if (this.closed || event.resource !== this.def.storage) return;
    // A start point in the future: nothing is delivered until the global RV passes it.
    if (this.startRv !== undefined && event.resourceVersion <= this.startRv) return;
    const out = eventForWatcher(event, this.matches);
    if (out) this.emit(out.type, out.object);
  }

  private emit(type: 'ADDED' | 'MODIFIED' | 'DELETED', object: KubeObject): void {
    this.lastSentRv = Math.max(this.lastSentRv, Number(object.metadata.resourceVersion ?? 0));
    this.sink?.send({ type, object });
  }
}
