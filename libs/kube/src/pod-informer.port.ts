import type { V1Pod } from '@kubernetes/client-node';

/** One change the informer saw; `previous` is the last state it had (absent for an add). */
export interface PodChange {
  readonly type: 'added' | 'updated' | 'deleted';
  readonly pod: V1Pod;
  readonly previous?: V1Pod;
}

/**
 * A local, watch-driven cache of the instance's sandbox pods (assigned and unassigned): the pool and GC decide on
 * it without listing (C-CTL-2 "refill is watch-driven"). It never gives up: a failed list or watch is retried with
 * back-off and jitter, and `problem` says what is wrong meanwhile (`/health`).
 */
export interface PodInformer {
  start(): void;
  stop(): Promise<void>;
  /** The first list has completed: `pods()` is the cluster's state (as of the last event). */
  readonly synced: boolean;
  /** Why the cache may be stale right now (list/watch failing), or undefined when it is live. */
  readonly problem: string | undefined;
  pods(): V1Pod[];
  /** Subscribes to changes; returns the unsubscribe function. */
  onChange(listener: (change: PodChange) => void): () => void;
  /** Called after every (re-)list and whenever `problem` changes. */
  onStateChange(listener: () => void): () => void;
}
