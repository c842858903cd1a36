/** One change an informer saw; `previous` is the last state it had (absent for an add). */
export interface ObjectChange<T> {
  readonly type: 'added' | 'updated' | 'deleted';
  readonly object: T;
  readonly previous?: T;
}

/**
 * A local, watch-driven cache of one resource (the objects a list + watch with one selector returns): the
 * reconcilers decide on it without listing (C-CTL-2, C-OP-6 "watches only"). It never gives up: a failed list or
 * watch is retried with back-off and jitter, and `problem` says what is wrong meanwhile (`/health`).
 */
export interface ObjectInformer<T> {
  start(): void;
  stop(): Promise<void>;
  /** The first list has completed: `objects()` is the cluster's state (as of the last event). */
  readonly synced: boolean;
  /** Why the cache may be stale right now (list/watch failing), or undefined when it is live. */
  readonly problem: string | undefined;
  objects(): T[];
  /** The cached object named `name`, if any. */
  get(name: string): T | undefined;
  /** Subscribes to changes; returns the unsubscribe function. */
  onObjectChange(listener: (change: ObjectChange<T>) => void): () => void;
  /** Called after every (re-)list and whenever `problem` changes. */
  onStateChange(listener: () => void): () => void;
}

/**
 * What an informer logs (a failing and a restored list/watch): the controller's logger and the egress gateway's
 * both fit it. Moved here with the informer so the gateway (issue 20 item 3) reuses the controller's one.
 */
export interface InformerLogger {
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
}
