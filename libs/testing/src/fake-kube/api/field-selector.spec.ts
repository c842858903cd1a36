import { describe, expect, it } from 'vitest';
import { parseFieldSelector } from './field-selector.js';
import { SelectorParseError } from './label-selector.js';
import { PODS, SECRETS } from './resources.js';

const pod = { metadata: { name: 'p1', namespace: 'ns' }, spec: { nodeName: 'n1' }, status: { phase: 'Running', podIP: '127.0.0.2' } };

describe(parseFieldSelector.name, () => {
  it.each([
    ['', true],
    ['metadata.name=p1', true],
    ['metadata.name==p1', true],
    ['metadata.name!=p1', false],
    ['status.phase=Running,spec.nodeName=n1', true],
    ['status.phase!=Failed,status.phase!=Succeeded', true],
    ['status.podIP=', false],
    ['status.nominatedNodeName=', true],
  ])('%j matches → %s', (selector, expected) => {
    expect(parseFieldSelector(selector).matches(pod, PODS.fields)).toBe(expected);
  });

  it('unescapes values', () => {
    expect(parseFieldSelector('metadata.name=a\\,b').requirements).toEqual([{ field: 'metadata.name', operator: '=', value: 'a,b' }]);
  });

  it('rejects fields the resource does not index with the real wording', () => {
    const selector = parseFieldSelector('spec.foo=1');
    expect(() => selector.assertSupported(PODS.fields)).toThrow('field label not supported: spec.foo');
    expect(() => parseFieldSelector('status.phase=Running').assertSupported(SECRETS.fields)).toThrow(SelectorParseError);
    expect(() => parseFieldSelector('type=Opaque').assertSupported(SECRETS.fields)).not.toThrow();
  });

  it('rejects terms without an operator', () => {
    expect(() => parseFieldSelector('metadata.name')).toThrow(/invalid selector/);
  });
});
