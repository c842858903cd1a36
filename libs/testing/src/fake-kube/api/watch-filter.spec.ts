import { describe, expect, it } from 'vitest';
import type { StoreEvent } from './object-store.js';
import type { KubeObject } from './types.js';
import { eventForWatcher } from './watch-filter.js';

const pod = (rv: string, labels: Record<string, string>): KubeObject => ({ metadata: { name: 'p', namespace: 'ns', resourceVersion: rv, labels } });
const isA = (o: KubeObject): boolean => o.metadata.labels?.['app'] === 'a';

function modified(before: Record<string, string>, after: Record<string, string>): StoreEvent {
  return { type: 'MODIFIED', resource: 'pods', object: pod('6', after), previous: pod('5', before), resourceVersion: 6 };
}

describe(eventForWatcher.name, () => {
  it('passes through changes that match before and after', () => {
    expect(eventForWatcher(modified({ app: 'a' }, { app: 'a', x: '1' }), isA)).toEqual({ type: 'MODIFIED', object: pod('6', { app: 'a', x: '1' }) });
  });

  it('turns "starts matching" into ADDED', () => {
    expect(eventForWatcher(modified({ app: 'b' }, { app: 'a' }), isA)?.type).toBe('ADDED');
  });

  it('turns "stops matching" into DELETED with the previous content and the new resourceVersion', () => {
    expect(eventForWatcher(modified({ app: 'a' }, { app: 'b' }), isA)).toEqual({ type: 'DELETED', object: pod('6', { app: 'a' }) });
  });

  it('drops changes that never match', () => {
    expect(eventForWatcher(modified({ app: 'b' }, { app: 'c' }), isA)).toBeUndefined();
  });

  it('filters ADDED and DELETED on the object state', () => {
    expect(eventForWatcher({ type: 'ADDED', resource: 'pods', object: pod('1', { app: 'a' }), resourceVersion: 1 }, isA)?.type).toBe('ADDED');
    expect(eventForWatcher({ type: 'ADDED', resource: 'pods', object: pod('1', {}), resourceVersion: 1 }, isA)).toBeUndefined();
    const deleted: StoreEvent = { type: 'DELETED', resource: 'pods', object: pod('9', { app: 'a' }), previous: pod('8', { app: 'a' }), resourceVersion: 9 };
    expect(eventForWatcher(deleted, isA)).toEqual({ type: 'DELETED', object: pod('9', { app: 'a' }) });
  });
});
