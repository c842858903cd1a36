import { describe, expect, it } from 'vitest';
import { applyJsonPatch, decodeJsonPatch, JsonPatchApplyError, JsonPatchDecodeError, parsePointer, type JsonPatchOperation } from './json-patch.js';

const apply = (doc: unknown, ops: unknown): unknown => applyJsonPatch(doc, decodeJsonPatch(ops));

describe(applyJsonPatch.name, () => {
  it.each<[unknown, JsonPatchOperation[], unknown]>([
    [{ foo: 'bar' }, [{ op: 'add', path: '/baz', value: 'qux' }], { foo: 'bar', baz: 'qux' }],
    [{ foo: ['bar', 'baz'] }, [{ op: 'add', path: '/foo/1', value: 'qux' }], { foo: ['bar', 'qux', 'baz'] }],
    [{ foo: ['bar'] }, [{ op: 'add', path: '/foo/-', value: 'x' }], { foo: ['bar', 'x'] }],
    [{ baz: 'qux', foo: 'bar' }, [{ op: 'remove', path: '/baz' }], { foo: 'bar' }],
    [{ foo: ['bar', 'qux', 'baz'] }, [{ op: 'remove', path: '/foo/1' }], { foo: ['bar', 'baz'] }],
    [{ baz: 'qux', foo: 'bar' }, [{ op: 'replace', path: '/baz', value: 'boo' }], { baz: 'boo', foo: 'bar' }],
    [{ foo: { bar: 'baz', waldo: 'fred' }, qux: { corge: 'grault' } }, [{ op: 'move', from: '/foo/waldo', path: '/qux/thud' }], { foo: { bar: 'baz' }, qux: { corge: 'grault', thud: 'fred' } }],
    [{ foo: ['all', 'grass', 'cows', 'eat'] }, [{ op: 'move', from: '/foo/1', path: '/foo/3' }], { foo: ['all', 'cows', 'eat', 'grass'] }],
    [{ a: { b: 1 } }, [{ op: 'copy', from: '/a', path: '/c' }], { a: { b: 1 }, c: { b: 1 } }],
    [{ baz: 'qux', foo: ['a', 2, 'c'] }, [{ op: 'test', path: '/baz', value: 'qux' }, { op: 'test', path: '/foo/1', value: 2 }], { baz: 'qux', foo: ['a', 2, 'c'] }],
    [{ 'a/b': 1, 'm~n': 2 }, [{ op: 'replace', path: '/a~1b', value: 3 }, { op: 'remove', path: '/m~0n' }], { 'a/b': 3 }],
    [{ a: 1 }, [{ op: 'test', path: '/missing', value: null }], { a: 1 }],
    [{ a: { x: 1, y: [1, { z: 2 }] } }, [{ op: 'test', path: '/a', value: { y: [1, { z: 2 }], x: 1 } }], { a: { x: 1, y: [1, { z: 2 }] } }],
  ])('applies to %j: %j', (doc, ops, expected) => {
    expect(apply(doc, ops)).toEqual(expected);
  });

  it('edits a label whose key contains a slash (~1 escaping)', () => {
    const pod = { metadata: { labels: { 'cli-mcp.redhat.com/session-id': 'a' } } };
    expect(apply(pod, [{ op: 'replace', path: '/metadata/labels/cli-mcp.redhat.com~1session-id', value: 'b' }])).toEqual({
      metadata: { labels: { 'cli-mcp.redhat.com/session-id': 'b' } },
    });
  });

  it.each<[unknown, unknown[]]>([
    [{ baz: 'qux' }, [{ op: 'test', path: '/baz', value: 'bar' }]],
    [{ a: 1 }, [{ op: 'test', path: '/missing', value: 1 }]],
    [{ a: 1 }, [{ op: 'remove', path: '/missing' }]],
    [{ a: 1 }, [{ op: 'replace', path: '/missing', value: 1 }]],
    [{ a: 1 }, [{ op: 'add', path: '/x/y', value: 1 }]],
    [{ a: [1] }, [{ op: 'add', path: '/a/5', value: 1 }]],
    [{ a: [1] }, [{ op: 'add', path: '/a/01', value: 1 }]],
    [{ a: 1 }, [{ op: 'move', from: '/nope', path: '/b' }]],
    [{ a: { b: 1 } }, [{ op: 'move', from: '/a', path: '/a/b/c' }]],
  ])('fails to apply to %j: %j', (doc, ops) => {
    expect(() => apply(doc, ops)).toThrow(JsonPatchApplyError);
  });

  it('is atomic: a failing test leaves the input unchanged', () => {
    const doc = { a: 1 };
    expect(() => apply(doc, [{ op: 'replace', path: '/a', value: 2 }, { op: 'test', path: '/a', value: 3 }])).toThrow('testing value /a failed');
    expect(doc).toEqual({ a: 1 });
  });

  it.each([[{ op: 'add', path: '/a' }], [{ op: 'frob', path: '/a' }], [{ op: 'move', path: '/a' }], [{ path: '/a' }]])('rejects malformed operation %j', (op) => {
    expect(() => decodeJsonPatch([op])).toThrow(JsonPatchDecodeError);
  });

  it('rejects a non-array document', () => {
    expect(() => decodeJsonPatch({ op: 'add' })).toThrow(JsonPatchDecodeError);
  });
});

describe(parsePointer.name, () => {
  it('unescapes ~1 before ~0', () => {
    expect(parsePointer('/~01/a~1b/')).toEqual(['~1', 'a/b', '']);
    expect(parsePointer('')).toEqual([]);
  });
});
