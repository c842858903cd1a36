import { beforeEach, describe, expect, it } from 'vitest';
import { KubeApi } from './kube-api.js';
import { ObjectStore } from './object-store.js';
import { LEASES, PODS, SECRETS } from './resources.js';
import { KubeApiError } from './status.js';
import type { KubeObject, Status } from './types.js';

const NOW = new Date('2026-03-04T05:06:07.890Z');
const podBody = (name: string, extra: Record<string, unknown> = {}): Record<string, unknown> => ({
  metadata: { name, labels: { app: 'sbx' } },
  spec: { containers: [{ name: 'sandbox', image: 'img:1' }] },
  ...extra,
});

function failure(fn: () => unknown): Status {
  try {
    fn();
  } catch (error) {
    if (error instanceof KubeApiError) return error.status;
    throw error;
  }
  throw new Error('expected a KubeApiError');
}

describe(KubeApi.name, () => {
  let store: ObjectStore;
  let api: KubeApi;
  beforeEach(() => {
    store = new ObjectStore({ initialResourceVersion: 100 });
    api = new KubeApi(store, { clock: () => NOW });
  });

  describe('create', () => {
    it('sets server metadata, defaults and the initial pod status, ignoring a client status', () => {
      const pod = api.create(PODS, 'ns', podBody('p', { status: { phase: 'Running' } }));
      expect(pod.metadata).toMatchObject({ name: 'p', namespace: 'ns', resourceVersion: '101', creationTimestamp: '2026-03-04T05:06:07Z' });
      expect(pod.metadata.uid).toMatch(/^[0-9a-f-]{36}$/);
      expect(pod).toMatchObject({ apiVersion: 'v1', kind: 'Pod', status: { phase: 'Pending', qosClass: 'BestEffort' } });
      expect(pod['spec']).toMatchObject({ restartPolicy: 'Always', terminationGracePeriodSeconds: 30, serviceAccountName: 'default' });
    });

    it('generates a name from generateName + 5 random chars', () => {
      const pod = api.create(PODS, 'ns', { ...podBody(''), metadata: { generateName: 'sbx-' } });
      expect(pod.metadata.name).toMatch(/^sbx-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
    });

    it('answers 422 without name or generateName, 409 AlreadyExists, 400 on a namespace mismatch', () => {
      expect(failure(() => api.create(PODS, 'ns', { spec: {} }))).toMatchObject({ code: 422, message: 'Pod "" is invalid: metadata.name: Required value: name or generateName is required' });
      api.create(PODS, 'ns', podBody('p'));
      expect(failure(() => api.create(PODS, 'ns', podBody('p')))).toMatchObject({ code: 409, reason: 'AlreadyExists', message: 'pods "p" already exists' });
      expect(failure(() => api.create(PODS, 'ns', { ...podBody('q'), metadata: { name: 'q', namespace: 'other' } }))).toMatchObject({
        code: 400,
        message: 'the namespace of the provided object does not match the namespace sent on the request',
      });
    });

    it('validates labels and containers (422 with causes)', () => {
      const status = failure(() => api.create(PODS, 'ns', { metadata: { name: 'p', labels: { k: 'v'.repeat(64) } }, spec: { containers: [] } }));
      expect(status.code).toBe(422);
      expect(status.details?.causes?.map((c) => c.field)).toEqual(['metadata.labels', 'spec.containers']);
    });

    it('does not store on dryRun', () => {
      api.create(PODS, 'ns', podBody('p'), { dryRun: true });
      expect(store.get('pods', 'ns', 'p')).toBeUndefined();
    });
  });

  describe('optimistic concurrency', () => {
    it('rejects a PUT with a stale resourceVersion (409 Conflict) and accepts one without', () => {
      const pod = api.create(PODS, 'ns', podBody('p'));
      api.patch(PODS, 'ns', 'p', 'merge', { metadata: { labels: { x: '1' } } });
      expect(failure(() => api.replace(PODS, 'ns', 'p', pod))).toMatchObject({ code: 409, reason: 'Conflict' });
      const { resourceVersion: _rv, ...meta } = pod.metadata;
      expect(api.replace(PODS, 'ns', 'p', { ...pod, metadata: meta }).metadata.labels).toEqual({ app: 'sbx' });
    });

    it('treats metadata.resourceVersion in a merge patch as a precondition (the claim path)', () => {
      const pod = api.create(PODS, 'ns', podBody('p'));
      const claim = (session: string): Record<string, unknown> => ({ metadata: { labels: { session }, resourceVersion: pod.metadata.resourceVersion } });
      expect(api.patch(PODS, 'ns', 'p', 'merge', claim('a')).metadata.labels).toMatchObject({ session: 'a' });
      expect(failure(() => api.patch(PODS, 'ns', 'p', 'merge', claim('b')))).toMatchObject({ code: 409, reason: 'Conflict' });
    });

    it('does not bump the resourceVersion for a no-op write', () => {
      const pod = api.create(PODS, 'ns', podBody('p'));
      const same = api.patch(PODS, 'ns', 'p', 'merge', { metadata: { labels: { app: 'sbx' } } });
      expect(same.metadata.resourceVersion).toBe(pod.metadata.resourceVersion);
    });

    it('checks DELETE preconditions', () => {
      const secret = api.create(SECRETS, 'ns', { metadata: { name: 's' } });
      expect(failure(() => api.delete(SECRETS, 'ns', 's', { preconditions: { uid: 'other' } }))).toMatchObject({ code: 409 });
      expect(failure(() => api.delete(SECRETS, 'ns', 's', { preconditions: { resourceVersion: '1' } })).message).toContain('Precondition failed: ResourceVersion in precondition: 1');
      expect(api.delete(SECRETS, 'ns', 's', { preconditions: { uid: secret.metadata.uid } })).toMatchObject({ status: 'Success', details: { name: 's', kind: 'secrets', uid: secret.metadata.uid } });
    });
  });

  describe('patch', () => {
    it('applies JSON patch; a failed test is 422 with the generic message', () => {
      api.create(PODS, 'ns', podBody('p'));
      const patched = api.patch(PODS, 'ns', 'p', 'json', [{ op: 'add', path: '/metadata/annotations', value: { a: 'b' } }]);
      expect(patched.metadata.annotations).toEqual({ a: 'b' });
      expect(failure(() => api.patch(PODS, 'ns', 'p', 'json', [{ op: 'test', path: '/metadata/labels/app', value: 'nope' }]))).toEqual({
        kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure',
        message: 'the server rejected our request due to an error in our request', reason: 'Invalid', details: {}, code: 422,
      });
      expect(failure(() => api.patch(PODS, 'ns', 'p', 'json', { op: 'add' }))).toMatchObject({ code: 400 });
    });

    it('forbids pod spec changes other than images, and keeps status out of main-resource writes', () => {
      api.create(PODS, 'ns', podBody('p'));
      expect(failure(() => api.patch(PODS, 'ns', 'p', 'merge', { spec: { restartPolicy: 'Never' } }))).toMatchObject({ code: 422 });
      expect(api.patch(PODS, 'ns', 'p', 'json', [{ op: 'replace', path: '/spec/containers/0/image', value: 'img:2' }])).toBeTruthy();
      expect(api.patch(PODS, 'ns', 'p', 'merge', { status: { phase: 'Running' } })['status']).toMatchObject({ phase: 'Pending' });
      expect(api.patch(PODS, 'ns', 'p', 'merge', { status: { phase: 'Running' } }, { subresource: 'status' })['status']).toMatchObject({ phase: 'Running' });
    });
  });

  describe('secrets', () => {
    it('folds stringData into base64 data, never returns it, and defaults the type', () => {
      const secret = api.create(SECRETS, 'ns', { metadata: { name: 's' }, stringData: { token: 'abc' }, data: { other: 'eA==' } });
      expect(secret).toMatchObject({ type: 'Opaque', data: { token: 'YWJj', other: 'eA==' } });
      expect(secret['stringData']).toBeUndefined();
    });

    it('rejects invalid base64 like the real decoder (400 BadRequest)', () => {
      expect(failure(() => api.create(SECRETS, 'ns', { metadata: { name: 's' }, data: { token: 'not base64!' } }))).toMatchObject({
        code: 400,
        reason: 'BadRequest',
        message: 'Secret in version "v1" cannot be handled as a Secret: illegal base64 data at input byte 3',
      });
    });

    it('enforces immutable', () => {
      api.create(SECRETS, 'ns', { metadata: { name: 's' }, immutable: true, stringData: { a: 'b' } });
      expect(failure(() => api.patch(SECRETS, 'ns', 's', 'merge', { stringData: { a: 'c' } }))).toMatchObject({ code: 422, message: expect.stringContaining('data: Forbidden: field is immutable when `immutable` is set') });
      expect(api.patch(SECRETS, 'ns', 's', 'merge', { metadata: { labels: { x: 'y' } } }).metadata.labels).toEqual({ x: 'y' });
    });
  });

  describe('leases', () => {
    it('accepts six fractional digits and rejects three with 400', () => {
      const lease = api.create(LEASES, 'ns', { metadata: { name: 'l' }, spec: { holderIdentity: 'a', renewTime: '2026-01-01T00:00:00.123456Z', leaseDurationSeconds: 15 } });
      expect(lease).toMatchObject({ apiVersion: 'coordination.k8s.io/v1', kind: 'Lease' });
      const bad = failure(() => api.replace(LEASES, 'ns', 'l', { ...lease, spec: { renewTime: '2026-01-01T00:00:00.123Z' } }));
      expect(bad).toMatchObject({ code: 400, reason: 'BadRequest' });
      expect(bad.message).toMatch(/^Lease in version "v1" cannot be handled as a Lease: parsing time/);
      expect(failure(() => api.get(LEASES, 'ns', 'nope'))).toMatchObject({ message: 'leases.coordination.k8s.io "nope" not found' });
    });
  });

  describe('delete', () => {
    const bound = (name: string): KubeObject => {
      const pod = api.create(PODS, 'ns', podBody(name));
      return api.mutatePod('ns', name, pod.metadata.uid as string, (p) => ((p['spec'] as Record<string, unknown>)['nodeName'] = 'node')) as KubeObject;
    };

    it('removes an unscheduled pod at once and returns it', () => {
      api.create(PODS, 'ns', podBody('p'));
      const deleted = api.delete(PODS, 'ns', 'p') as KubeObject;
      expect(deleted.kind).toBe('Pod');
      expect(store.get('pods', 'ns', 'p')).toBeUndefined();
    });

    it('marks a scheduled pod terminating until the kubelet finalizes it', () => {
      const pod = bound('p');
      const terminating = api.delete(PODS, 'ns', 'p', { gracePeriodSeconds: 5 }) as KubeObject;
      expect(terminating.metadata).toMatchObject({ deletionTimestamp: '2026-03-04T05:06:12Z', deletionGracePeriodSeconds: 5 });
      expect(store.get('pods', 'ns', 'p')).toBeDefined();
      api.finalizePod('ns', 'p', pod.metadata.uid as string);
      expect(store.get('pods', 'ns', 'p')).toBeUndefined();
    });

    it('deletes at once with grace 0', () => {
      bound('p');
      api.delete(PODS, 'ns', 'p', { gracePeriodSeconds: 0 });
      expect(store.get('pods', 'ns', 'p')).toBeUndefined();
    });

    it('lets finalizers block removal until they are cleared', () => {
      api.create(SECRETS, 'ns', { metadata: { name: 's', finalizers: ['example.com/keep'] } });
      const result = api.delete(SECRETS, 'ns', 's') as KubeObject;
      expect(result.metadata.deletionTimestamp).toBeDefined();
      expect(store.get('secrets', 'ns', 's')).toBeDefined();
      const events: string[] = [];
      store.subscribe((e) => events.push(e.type));
      api.patch(SECRETS, 'ns', 's', 'merge', { metadata: { finalizers: null } });
      expect(store.get('secrets', 'ns', 's')).toBeUndefined();
      expect(events).toEqual(['DELETED']);
    });

    it('deletecollection deletes what the selector matches', () => {
      api.create(SECRETS, 'ns', { metadata: { name: 'a', labels: { x: '1' } } });
      api.create(SECRETS, 'ns', { metadata: { name: 'b' } });
      expect(api.deleteCollection(SECRETS, 'ns', { labelSelector: 'x=1' }).items.map((i) => i.metadata.name)).toEqual(['a']);
      expect(store.list('secrets').map((i) => i.metadata.name)).toEqual(['b']);
    });
  });

  describe('list', () => {
    it('filters by selectors, strips kind from items, and pages with a continue token', () => {
      for (const name of ['a', 'b', 'c', 'd']) api.create(SECRETS, 'ns', { metadata: { name, labels: { keep: name === 'd' ? 'no' : 'yes' } } });
      api.create(SECRETS, 'other', { metadata: { name: 'z', labels: { keep: 'yes' } } });
      const first = api.list(SECRETS, 'ns', { labelSelector: 'keep=yes', limit: 2 });
      expect(first.items.map((i) => i.metadata.name)).toEqual(['a', 'b']);
      expect(first.items[0]?.kind).toBeUndefined();
      expect(first.metadata.remainingItemCount).toBe(1);
      api.create(SECRETS, 'ns', { metadata: { name: 'e' } });
      const second = api.list(SECRETS, 'ns', { labelSelector: 'keep=yes', limit: 2, continue: first.metadata.continue });
      expect(second.items.map((i) => i.metadata.name)).toEqual(['c']);
      expect(second.metadata).toEqual({ resourceVersion: first.metadata.resourceVersion });
      expect(api.list(SECRETS, undefined, { labelSelector: 'keep=yes' }).items).toHaveLength(4);
      expect(failure(() => api.list(SECRETS, 'ns', { continue: 'garbage' }))).toMatchObject({ code: 400 });
      expect(failure(() => api.list(SECRETS, 'ns', { fieldSelector: 'status.phase=x' }))).toMatchObject({ code: 400, message: 'field label not supported: status.phase' });
    });
  });
});
