import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { KubeApi } from './kube-api.js';
import { ObjectStore } from './object-store.js';
import { SECRETS } from './resources.js';
import type { Status } from './types.js';
import { WatchSession, type WireWatchEvent } from './watch-session.js';

function collect(session: WatchSession): { events: WireWatchEvent[]; closed: () => boolean } {
  const events: WireWatchEvent[] = [];
  let closed = false;
  session.start({ send: (e) => events.push(e), close: () => (closed = true) });
  return { events, closed: () => closed };
}

const summary = (events: WireWatchEvent[]): string[] => events.map((e) => `${e.type} ${(e.object as { metadata: { name?: string } }).metadata.name ?? ''}`.trim());

describe(WatchSession.name, () => {
  let store: ObjectStore;
  let api: KubeApi;
  beforeEach(() => {
    store = new ObjectStore({ initialResourceVersion: 0, eventWindow: 4 });
    api = new KubeApi(store);
  });
  afterEach(() => vi.useRealTimers());

  it('starts with synthetic ADDED events for current matches when resourceVersion is unset or 0', () => {
    api.create(SECRETS, 'ns', { metadata: { name: 'a', labels: { w: '1' } } });
    api.create(SECRETS, 'ns', { metadata: { name: 'b' } });
    for (const resourceVersion of [undefined, '', '0']) {
      const { events } = collect(new WatchSession(store, SECRETS, 'ns', { resourceVersion, labelSelector: 'w=1' }, 0));
      expect(summary(events)).toEqual(['ADDED a']);
    }
  });

  it('replays events after N, then streams live changes with selector transitions', () => {
    const a = api.create(SECRETS, 'ns', { metadata: { name: 'a', labels: { w: '1' } } });
    api.patch(SECRETS, 'ns', 'a', 'merge', { metadata: { annotations: { x: 'y' } } });
    const session = new WatchSession(store, SECRETS, 'ns', { resourceVersion: a.metadata.resourceVersion, labelSelector: 'w=1' }, 0);
    const { events } = collect(session);
    api.patch(SECRETS, 'ns', 'a', 'merge', { metadata: { labels: { w: null } } });
    api.patch(SECRETS, 'ns', 'a', 'merge', { metadata: { labels: { w: '1' } } });
    api.create(SECRETS, 'other', { metadata: { name: 'z', labels: { w: '1' } } });
    api.delete(SECRETS, 'ns', 'a');
    expect(summary(events)).toEqual(['MODIFIED a', 'DELETED a', 'ADDED a', 'DELETED a']);
    session.close();
  });

  it('answers a start point older than the window with one ERROR 410 Expired and closes', () => {
    for (const name of ['a', 'b', 'c', 'd', 'e', 'f']) api.create(SECRETS, 'ns', { metadata: { name } });
    const { events, closed } = collect(new WatchSession(store, SECRETS, 'ns', { resourceVersion: '1' }, 0));
    expect(events).toHaveLength(1);
    expect(events[0]?.type).toBe('ERROR');
    expect(events[0]?.object as Status).toMatchObject({ kind: 'Status', code: 410, reason: 'Expired', message: 'too old resource version: 1 (3)' });
    expect(closed()).toBe(true);
  });

  it('closes after timeoutSeconds and sends BOOKMARKs when asked', () => {
    vi.useFakeTimers();
    const session = new WatchSession(store, SECRETS, 'ns', { timeoutSeconds: 5, allowWatchBookmarks: true, labelSelector: 'none=1' }, 1000);
    const { events, closed } = collect(session);
    api.create(SECRETS, 'ns', { metadata: { name: 'a' } });
    vi.advanceTimersByTime(1000);
    expect(events).toEqual([{ type: 'BOOKMARK', object: { kind: 'Secret', apiVersion: 'v1', metadata: { resourceVersion: '1' } } }]);
    vi.advanceTimersByTime(1000);
    expect(events).toHaveLength(1);
    vi.advanceTimersByTime(3000);
    expect(closed()).toBe(true);
  });

  it('delivers nothing before a start point in the future is reached', () => {
    const { events } = collect(new WatchSession(store, SECRETS, 'ns', { resourceVersion: '2' }, 0));
    api.create(SECRETS, 'ns', { metadata: { name: 'a' } });
    api.create(SECRETS, 'ns', { metadata: { name: 'b' } });
    api.create(SECRETS, 'ns', { metadata: { name: 'c' } });
    expect(summary(events)).toEqual(['ADDED c']);
  });

  it('validates selectors and resourceVersion up front', () => {
    expect(() => new WatchSession(store, SECRETS, 'ns', { labelSelector: 'a in (' }, 0)).toThrow();
    expect(() => new WatchSession(store, SECRETS, 'ns', { resourceVersion: 'abc' }, 0)).toThrow(/resourceVersion/);
  });
});
