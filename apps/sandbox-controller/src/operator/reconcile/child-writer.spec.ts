import { describe, expect, it } from 'vitest';
import { KubeError } from '@cli-mcp/kube';
import { FakeClock } from '@cli-mcp/testing';
import type { DesiredChild } from '../children/desired-child.js';
import { ownerReference } from '../children/owner.js';
import type { ObjectApi } from '../kube/object-api.port.js';
import { DEPLOYMENTS, type KubeObject } from '../kube/resources.js';
import { APPLIED_HASH_ANNOTATION, ChildWriter, MAX_CORRECTIONS } from './child-writer.js';
import { containsDesired, mergeOwned } from './object-merge.js';

const OWNER = { name: 'oc', uid: 'cr-uid' };

function desired(replicas: number, extra: Record<string, unknown> = {}): DesiredChild {
  return {
    resource: DEPLOYMENTS,
    object: {
      apiVersion: 'apps/v1', kind: 'Deployment',
      metadata: { name: 'cli-mcp-oc-server', labels: { a: '1' }, ownerReferences: [ownerReference(OWNER)] },
      spec: { replicas, template: { spec: { containers: [{ name: 'server', image: 'i', resources: { limits: { cpu: '0.5' } }, ...extra }] } } },
    } as KubeObject,
    owned: [['spec', 'replicas'], ['spec', 'template']],
  };
}

/** A one-object cluster: the writer's lookup reads it, its api writes it (resourceVersion-checked). */
function cluster() {
  let live: KubeObject | undefined;
  let rv = 0;
  const calls: string[] = [];
  const api: ObjectApi = {
    namespace: 'ns',
    async create(_r, object) {
      calls.push('create');
      if (live) throw new KubeError('exists', 409, 'AlreadyExists');
      live = { ...structuredClone(object), metadata: { ...object.metadata, resourceVersion: String(++rv), uid: 'd1' } };
      return live;
    },
    async replace(_r, object) {
      calls.push('replace');
      if (object.metadata?.resourceVersion !== live?.metadata?.resourceVersion) throw new KubeError('conflict', 409, 'Conflict');
      live = { ...structuredClone(object), metadata: { ...object.metadata, resourceVersion: String(++rv) } };
      return live;
    },
    mergePatch: () => Promise.reject(new Error('unexpected')),
    delete: () => Promise.reject(new Error('unexpected')),
  };
  const clock = new FakeClock();
  const writer = new ChildWriter({ api, lookup: () => live, clock });
  return {
    writer, calls, clock, api,
    get live() { return live!; },
    set live(value: KubeObject) { live = value; },
    /** Another writer (or the API server's defaulting) changes the stored object. */
    mutate(change: (o: KubeObject) => void) { change(live!); live!.metadata!.resourceVersion = String(++rv); },
  };
}

const signal = new AbortController().signal;

describe(ChildWriter.name, () => {
  it('creates a missing child with its applied hash, then leaves it alone while the rendering is unchanged', async () => {
    const c = cluster();
    expect(await c.writer.ensure(desired(1), OWNER, signal)).toMatchObject({ state: 'pending' });
    expect(c.live.metadata?.annotations?.[APPLIED_HASH_ANNOTATION]).toMatch(/^[0-9a-f]{16}$/);
    // The API server defaults fields and canonicalises quantities: not drift.
    c.mutate((o) => Object.assign((o.spec as { template: { spec: { containers: Array<Record<string, unknown>> } } }).template.spec.containers[0]!, { terminationMessagePath: '/dev/termination-log', resources: { limits: { cpu: '500m' } } }));
    expect(await c.writer.ensure(desired(1), OWNER, signal)).toEqual({ state: 'ok' });
    expect(c.calls).toEqual(['create']);
  });

  it('updates when the rendering changes, keeping what others added and dropping what it no longer renders', async () => {
    const c = cluster();
    await c.writer.ensure(desired(1, { imagePullPolicy: 'Always' }), OWNER, signal);
    c.mutate((o) => { o.metadata!.labels = { ...o.metadata!.labels, team: 'x' }; (o.spec as Record<string, unknown>).progressDeadlineSeconds = 600; });
    expect(await c.writer.ensure(desired(2), OWNER, signal)).toMatchObject({ state: 'pending' });
    expect(c.live.metadata?.labels).toEqual({ a: '1', team: 'x' });
    expect(c.live.spec).toMatchObject({ replicas: 2, progressDeadlineSeconds: 600 });
    expect(JSON.stringify(c.live.spec)).not.toContain('imagePullPolicy');
  });

  it('restores a rendered field another writer changed, but stops after a few corrections and says so', async () => {
    const c = cluster();
    await c.writer.ensure(desired(1), OWNER, signal);
    for (let i = 0; i < MAX_CORRECTIONS; i++) {
      c.mutate((o) => ((o.spec as Record<string, unknown>).replicas = 5));
      expect(await c.writer.ensure(desired(1), OWNER, signal)).toMatchObject({ state: 'pending' });
      expect((c.live.spec as { replicas: number }).replicas).toBe(1);
    }
    c.mutate((o) => ((o.spec as Record<string, unknown>).replicas = 5));
    expect(await c.writer.ensure(desired(1), OWNER, signal)).toMatchObject({ state: 'blocked', message: expect.stringContaining('keeps being changed by another writer') });
    expect((c.live.spec as { replicas: number }).replicas).toBe(5);
    // Once the window passes it corrects again.
    c.clock.advance(11 * 60_000);
    expect(await c.writer.ensure(desired(1), OWNER, signal)).toMatchObject({ state: 'pending' });
  });

  it('compares exact paths exactly: a key added to a selector is drift, a default elsewhere is not', async () => {
    const c = cluster();
    const child = { ...desired(1), object: { ...desired(1).object, spec: { ...(desired(1).object.spec as object), selector: { matchLabels: { a: '1' } } } } as KubeObject, owned: [...desired(1).owned, ['spec', 'selector']], exact: [['spec', 'selector']] };
    await c.writer.ensure(child, OWNER, signal);
    c.mutate((o) => ((o.spec as { selector: { matchLabels: Record<string, string> } }).selector.matchLabels['extra'] = 'x'));
    expect(await c.writer.ensure(child, OWNER, signal)).toMatchObject({ state: 'pending' });
    expect((c.live.spec as { selector: unknown }).selector).toEqual({ matchLabels: { a: '1' } });
    c.mutate((o) => ((o.spec as Record<string, unknown>).progressDeadlineSeconds = 600));
    expect(await c.writer.ensure(child, OWNER, signal)).toEqual({ state: 'ok' });
  });

  it('never touches an object of that name it does not own', async () => {
    const c = cluster();
    c.live = { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'cli-mcp-oc-server', resourceVersion: '9' }, spec: { replicas: 7 } } as KubeObject;
    expect(await c.writer.ensure(desired(1), OWNER, signal)).toMatchObject({ state: 'blocked', message: expect.stringContaining('not owned by this CliMcpInstance') });
    expect(c.calls).toEqual([]);
  });

  it('loses a write race without harm: the 409 leaves the decision to the next event', async () => {
    const c = cluster();
    await c.writer.ensure(desired(1), OWNER, signal);
    const stale = structuredClone(c.live);
    c.mutate((o) => (o.metadata!.labels = { ...o.metadata!.labels, b: '2' }));
    const writer = new ChildWriter({ api: c.api, lookup: () => stale, clock: c.clock });
    expect(await writer.ensure(desired(3), OWNER, signal)).toMatchObject({ state: 'pending', message: expect.stringContaining('changed meanwhile') });
    expect((c.live.spec as { replicas: number }).replicas).toBe(1);
  });
});

describe(containsDesired.name, () => {
  it('is a subset test: extra live fields pass, a different or missing rendered value fails, arrays must match in length', () => {
    expect(containsDesired({ a: 1, b: { c: [1, { d: 2, e: 3 }] }, x: 1 }, { b: { c: [1, { d: 2 }] } })).toBe(true);
    expect(containsDesired({ b: { c: [1] } }, { b: { c: [1, 2] } })).toBe(false);
    expect(containsDesired({ a: 1 }, { a: 2 })).toBe(false);
    expect(containsDesired({ resources: { requests: { cpu: '1000m', memory: '1Gi' } } }, { resources: { requests: { cpu: 1, memory: '1024Mi' } } })).toBe(true);
    expect(containsDesired({ ports: '1000m' }, { ports: '1' })).toBe(false);
  });

  it('merges labels, annotations and owner references key by key and replaces owned paths whole', () => {
    const live = { metadata: { labels: { a: '0', keep: 'y' }, ownerReferences: [{ uid: 'other' }] }, spec: { x: { old: 1 }, kept: true } } as unknown as KubeObject;
    const want = { metadata: { labels: { a: '1' }, ownerReferences: [{ uid: 'mine' }] }, spec: { x: { new: 1 } } } as unknown as KubeObject;
    expect(mergeOwned(live, want, [['spec', 'x'], ['spec', 'gone']])).toEqual({
      metadata: { labels: { a: '1', keep: 'y' }, annotations: {}, ownerReferences: [{ uid: 'other' }, { uid: 'mine' }] },
      spec: { x: { new: 1 }, kept: true },
    });
  });
});
