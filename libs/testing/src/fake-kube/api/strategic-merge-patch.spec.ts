import { describe, expect, it } from 'vitest';
import { unsupportedStrategicElement } from './strategic-merge-patch.js';

describe(unsupportedStrategicElement.name, () => {
  it('accepts objects and scalars: labels, annotations, null deletions, Lease and Secret fields', () => {
    expect(unsupportedStrategicElement({ metadata: { labels: { a: '1', b: null }, annotations: { n: 'x' }, resourceVersion: '7' } })).toBeUndefined();
    expect(unsupportedStrategicElement({ spec: { holderIdentity: 'a', leaseDurationSeconds: 15 } })).toBeUndefined();
    expect(unsupportedStrategicElement({ data: { token: 'YQ==' }, immutable: true })).toBeUndefined();
    expect(unsupportedStrategicElement({})).toBeUndefined();
  });

  it.each([
    [{ metadata: { finalizers: ['a'] } }, 'metadata.finalizers'],
    [{ spec: { containers: [{ name: 'sandbox', image: 'x' }] } }, 'spec.containers'],
    [{ metadata: { labels: { $patch: 'replace' } } }, 'metadata.labels.$patch'],
    [{ $retainKeys: ['a'] }, '$retainKeys'],
    [{ spec: { '$setElementOrder/containers': [{ name: 'a' }] } }, 'spec.$setElementOrder/containers'],
    [[{ op: 'add' }], '(the patch itself is a list)'],
  ])('refuses %j at %s', (patch, path) => {
    expect(unsupportedStrategicElement(patch)).toBe(path);
  });
});
