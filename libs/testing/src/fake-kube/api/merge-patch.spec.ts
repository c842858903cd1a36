import { describe, expect, it } from 'vitest';
import { applyMergePatch } from './merge-patch.js';

describe(applyMergePatch.name, () => {
  // Examples from RFC 7386, Appendix A.
  it.each([
    [{ a: 'b' }, { a: 'c' }, { a: 'c' }],
    [{ a: 'b' }, { b: 'c' }, { a: 'b', b: 'c' }],
    [{ a: 'b' }, { a: null }, {}],
    [{ a: 'b', b: 'c' }, { a: null }, { b: 'c' }],
    [{ a: ['b'] }, { a: 'c' }, { a: 'c' }],
    [{ a: 'c' }, { a: ['b'] }, { a: ['b'] }],
    [{ a: { b: 'c' } }, { a: { b: 'd', c: null } }, { a: { b: 'd' } }],
    [{ a: [{ b: 'c' }] }, { a: [1] }, { a: [1] }],
    [['a', 'b'], ['c', 'd'], ['c', 'd']],
    [{ a: 'b' }, ['c'], ['c']],
    [{ a: 'foo' }, null, null],
    [{ a: 'foo' }, 'bar', 'bar'],
    [{ e: null }, { a: 1 }, { e: null, a: 1 }],
    [[1, 2], { a: 'b', c: null }, { a: 'b' }],
    [{}, { a: { bb: { ccc: null } } }, { a: { bb: {} } }],
  ])('merge(%j, %j) = %j', (target, patch, expected) => {
    expect(applyMergePatch(target, patch)).toEqual(expected);
  });

  it('removes a label with null and leaves the input untouched (the claim rollback)', () => {
    const pod = { metadata: { labels: { a: '1', 'cli-mcp.redhat.com/session-id': 's' }, resourceVersion: '7' } };
    const out = applyMergePatch(pod, { metadata: { labels: { 'cli-mcp.redhat.com/session-id': null } } });
    expect(out).toEqual({ metadata: { labels: { a: '1' }, resourceVersion: '7' } });
    expect(pod.metadata.labels['cli-mcp.redhat.com/session-id']).toBe('s');
  });
});
