import { cloneJson, type KubeObject } from './types.js';

/** A change recorded in the event log; `previous` is the state before a MODIFIED/DELETED. */
export interface StoreEvent {
  type: 'ADDED' | 'MODIFIED' | 'DELETED';
  /** Resource plural (`pods`, `secrets`, `leases`). */
  resource: string;
  /** Object after the change (for DELETED: the last state, stamped with the deletion's resourceVersion). */
  object: KubeObject;
  previous?: KubeObject;
  resourceVersion: number;
}

/** Result of asking the event log for everything after a resourceVersion. */
export type EventsSince = { expired: false; events: StoreEvent[] } | { expired: true; oldest: number };

export interface ObjectStoreOptions {
  /** How many events the watch log keeps; older start points get 410 Expired. Default 10 000. */
  eventWindow?: number;
  /** First resourceVersion handed out minus one. Default 100 (clients must treat RVs as opaque anyway). */
  initialResourceVersion?: number;
}

function keyOf(namespace: string | undefined, name: string): string {
  return `${namespace ?? ''}/${name}`;
}

/**
 * In-memory object storage with ONE global, monotonically increasing resourceVersion (like etcd's revision) and a
 * bounded event log for watches. Everything is synchronous, so each write is atomic with respect to the event
 * loop. Objects are deep-copied on the way in and out.
 */
export class ObjectStore {
  private revision: number;
  private readonly objects = new Map<string, Map<string, KubeObject>>();
  private readonly log: StoreEvent[] = [];
  /** Highest resourceVersion whose event is no longer in the log. */
  private compactedThrough: number;
  private readonly listeners = new Set<(event: StoreEvent) => void>();
  private windowSize: number;

  constructor(options: ObjectStoreOptions = {}) {
    this.revision = options.initialResourceVersion ?? 100;
    this.compactedThrough = this.revision;
    this.windowSize = Math.max(0, options.eventWindow ?? 10_000);
  }

  /** The current global resourceVersion (the RV of the latest write). */
  get resourceVersion(): number {
    return this.revision;
  }

  /** Changes the number of retained watch events (trims immediately). */
  set eventWindow(size: number) {
    this.windowSize = Math.max(0, size);
    this.trim();
  }

  get eventWindow(): number {
    return this.windowSize;
  }

  get(resource: string, namespace: string | undefined, name: string): KubeObject | undefined {
    const found = this.objects.get(resource)?.get(keyOf(namespace, name));
    return found ? cloneJson(found) : undefined;
  }

  /** All objects of a resource (optionally in one namespace), sorted by namespace then name. */
  list(resource: string, namespace?: string): KubeObject[] {
    const bucket = this.objects.get(resource);
    if (!bucket) return [];
    return [...bucket.entries()]
      .filter(([, o]) => namespace === undefined || o.metadata.namespace === namespace)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([, o]) => cloneJson(o));
  }

  /** Stores a new object, stamping the next resourceVersion. The caller checked that the name is free. */
  create(resource: string, object: KubeObject): KubeObject {
    const rv = ++this.revision;
    const stored = cloneJson(object);
    stored.metadata.resourceVersion = String(rv);
    this.bucket(resource).set(keyOf(stored.metadata.namespace, stored.metadata.name as string), stored);
    this.record({ type: 'ADDED', resource, object: stored, resourceVersion: rv });
    return cloneJson(stored);
  }

  /** Replaces an existing object, stamping the next resourceVersion. */
  update(resource: string, object: KubeObject): KubeObject {
    const key = keyOf(object.metadata.namespace, object.metadata.name as string);
    const bucket = this.bucket(resource);
    const previous = bucket.get(key);
    if (!previous) throw new Error(`ObjectStore.update: ${resource} ${key} does not exist`);
    const rv = ++this.revision;
    const stored = cloneJson(object);
    stored.metadata.resourceVersion = String(rv);
    bucket.set(key, stored);
    this.record({ type: 'MODIFIED', resource, object: stored, previous, resourceVersion: rv });
    return cloneJson(stored);
  }

  /**
   * Removes an object; the DELETED event carries its last state (or `finalState`, when the removal is the result
   * of an update such as clearing the last finalizer) with a new resourceVersion.
   */
  remove(resource: string, namespace: string | undefined, name: string, finalState?: KubeObject): KubeObject | undefined {
    const key = keyOf(namespace, name);
    const bucket = this.bucket(resource);
    const previous = bucket.get(key);
    if (!previous) return undefined;
    bucket.delete(key);
    const rv = ++this.revision;
    const last = cloneJson(finalState ?? previous);
    last.metadata.resourceVersion = String(rv);
    this.record({ type: 'DELETED', resource, object: last, previous, resourceVersion: rv });
    return cloneJson(last);
  }

  /** Every retained event with a resourceVersion greater than `rv`, or `expired` when some were dropped. */
  eventsSince(rv: number): EventsSince {
    if (rv < this.compactedThrough) {
      return { expired: true, oldest: this.compactedThrough + 1 };
    }
    const events = this.log.filter((e) => e.resourceVersion > rv).map((e) => cloneJson(e));
    return { expired: false, events };
  }

  /** Drops the whole event log: any watch from an older resourceVersion then gets 410 Expired. */
  compact(): void {
    this.log.length = 0;
    this.compactedThrough = this.revision;
  }

  /** Subscribes to every change (called synchronously inside the write). Returns the unsubscribe function. */
  subscribe(listener: (event: StoreEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private bucket(resource: string): Map<string, KubeObject> {
    let bucket = this.objects.get(resource);
    if (!bucket) {
      bucket = new Map();
      this.objects.set(resource, bucket);
    }
    return bucket;
  }

  private record(event: StoreEvent): void {
    this.log.push(event);
    this.trim();
    for (const listener of [...this.listeners]) listener(cloneJson(event));
  }

  private trim(): void {
    while (this.log.length > this.windowSize) {
      const dropped = this.log.shift() as StoreEvent;
      this.compactedThrough = dropped.resourceVersion;
    }
  }
}
