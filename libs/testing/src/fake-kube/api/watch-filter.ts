import type { StoreEvent } from './object-store.js';
import { cloneJson, type KubeObject } from './types.js';

/** An event as one particular watcher must see it. */
export interface WatcherEvent {
  type: 'ADDED' | 'MODIFIED' | 'DELETED';
  object: KubeObject;
}

/**
 * Translates a store event for a watcher whose selector/namespace is `matches`, as the real watch cache does:
 * an object that starts matching arrives as ADDED, one that stops matching as DELETED (previous content, new
 * resourceVersion), and changes that never match are not delivered.
 */
export function eventForWatcher(event: StoreEvent, matches: (object: KubeObject) => boolean): WatcherEvent | undefined {
  switch (event.type) {
    case 'ADDED':
      return matches(event.object) ? { type: 'ADDED', object: event.object } : undefined;
    case 'DELETED': {
      const last = event.previous ?? event.object;
      return matches(last) ? { type: 'DELETED', object: event.object } : undefined;
    }
    case 'MODIFIED': {
      const before = event.previous !== undefined && matches(event.previous);
      const after = matches(event.object);
      if (before && after) return { type: 'MODIFIED', object: event.object };
      if (!before && after) return { type: 'ADDED', object: event.object };
      if (before && !after) {
        const gone = cloneJson(event.previous as KubeObject);
        gone.metadata.resourceVersion = String(event.resourceVersion);
        return { type: 'DELETED', object: gone };
      }
      return undefined;
    }
  }
}
