import { describe, expect, it, vi } from 'vitest';
import { ObjectStore } from './object-store.js';
import type { KubeObject } from './types.js';

const obj = (name: string, extra: Partial<KubeObject> = {}): KubeObject => ({ metadata: { name, namespace: 'ns' }, ...extra });

describe(ObjectStore.name, () => {
  it('stamps one global, increasing resourceVersion across resources', () => {
    const store = new ObjectStore({ initialResourceVersion: 10 });
    const a = store.create('pods', obj('a'));
    const b = store.create('secrets', obj('b'));
    const a2 = store.update('pods', { ...a, spec: { x: 1 } });
    const gone = store.remove('secrets', 'ns', 'b');
    expect([a, b, a2, gone].map((o) => o?.metadata.resourceVersion)).toEqual(['11', '12', '13', '14']);
    expect(store.resourceVersion).toBe(14);
    expect(store.get('secrets', 'ns', 'b')).toBeUndefined();
  });

  it('copies objects in and out', () => {
    const store = new ObjectStore();
    const input = obj('a', { spec: { n: 1 } });
    store.create('pods', input);
    (input['spec'] as { n: number }).n = 2;
    const read = store.get('pods', 'ns', 'a') as KubeObject;
    (read['spec'] as { n: number }).n = 3;
    expect(store.get('pods', 'ns', 'a')?.['spec']).toEqual({ n: 1 });
  });

  it('lists sorted by namespace then name, optionally in one namespace', () => {
    const store = new ObjectStore();
    store.create('pods', { metadata: { name: 'b', namespace: 'y' } });
    store.create('pods', { metadata: { name: 'c', namespace: 'x' } });
    store.create('pods', { metadata: { name: 'a', namespace: 'y' } });
    expect(store.list('pods').map((o) => `${o.metadata.namespace}/${o.metadata.name}`)).toEqual(['x/c', 'y/a', 'y/b']);
    expect(store.list('pods', 'x')).toHaveLength(1);
  });

  it('DELETED carries the last state with a new resourceVersion, or the given final state', () => {
    const store = new ObjectStore({ initialResourceVersion: 0 });
    const events: string[] = [];
    store.subscribe((e) => events.push(`${e.type}:${e.object.metadata.resourceVersion}:${JSON.stringify(e.object['spec'] ?? null)}`));
    store.create('pods', obj('a', { spec: 1 }));
    store.remove('pods', 'ns', 'a');
    store.create('pods', obj('b', { spec: 1 }));
    store.remove('pods', 'ns', 'b', obj('b', { spec: 2 }));
    expect(events).toEqual(['ADDED:1:1', 'DELETED:2:1', 'ADDED:3:1', 'DELETED:4:2']);
  });

  it('replays events after a resourceVersion and expires start points older than the window', () => {
    const store = new ObjectStore({ initialResourceVersion: 0, eventWindow: 3 });
    for (const name of ['a', 'b', 'c', 'd', 'e']) store.create('pods', obj(name)); // RVs 1..5, log keeps 3..5
    const since = store.eventsSince(2);
    expect(since.expired).toBe(false);
    expect(since.expired ? [] : since.events.map((e) => e.resourceVersion)).toEqual([3, 4, 5]);
    expect(store.eventsSince(1)).toEqual({ expired: true, oldest: 3 });
    expect(store.eventsSince(5)).toEqual({ expired: false, events: [] });
  });

  it('compact() expires every earlier start point', () => {
    const store = new ObjectStore({ initialResourceVersion: 0 });
    store.create('pods', obj('a'));
    store.create('pods', obj('b'));
    store.compact();
    expect(store.eventsSince(1).expired).toBe(true);
    expect(store.eventsSince(2).expired).toBe(false);
  });

  it('notifies subscribers synchronously until they unsubscribe', () => {
    const store = new ObjectStore();
    const listener = vi.fn();
    const unsubscribe = store.subscribe(listener);
    store.create('pods', obj('a'));
    unsubscribe();
    store.create('pods', obj('b'));
    expect(listener).toHaveBeenCalledTimes(1);
  });
});
