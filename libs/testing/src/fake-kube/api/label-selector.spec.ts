import { describe, expect, it } from 'vitest';
import { parseLabelSelector, SelectorParseError } from './label-selector.js';

const labels = { app: 'sbx', tier: 'a', 'cli-mcp.redhat.com/session-id': 's-1', n: '5' };

describe(parseLabelSelector.name, () => {
  it.each([
    ['', true],
    ['app=sbx', true],
    ['app==sbx', true],
    ['app = sbx', true],
    ['app!=sbx', false],
    ['app!=other', true],
    ['missing!=x', true],
    ['tier in (a,b)', true],
    ['tier in ( b , c )', false],
    ['tier notin (b)', true],
    ['missing notin (b)', true],
    ['tier notin (a)', false],
    ['app', true],
    ['missing', false],
    ['!missing', true],
    ['!app', false],
    ['  ! app ', false],
    ['app=sbx,tier in (a),!gone', true],
    ['app=sbx,tier in (b)', false],
    ['cli-mcp.redhat.com/session-id=s-1', true],
    ['n>4', true],
    ['n<5', false],
    ['missing>1', false],
    ['empty=', false],
  ])('%j matches → %s', (selector, expected) => {
    expect(parseLabelSelector(selector).matches(labels)).toBe(expected);
  });

  it('matches an empty value against a label set to ""', () => {
    expect(parseLabelSelector('k=').matches({ k: '' })).toBe(true);
    expect(parseLabelSelector('k in (,x)').matches({ k: '' })).toBe(true);
  });

  it('decodes what URLSearchParams hands over (client-node sends + for spaces)', () => {
    const query = new URLSearchParams('labelSelector=app%3Dsbx%2Ctier+in+%28a%2Cb%29%2C%21gone');
    const selector = parseLabelSelector(query.get('labelSelector'));
    expect(selector.requirements).toEqual([
      { key: 'app', operator: '=', values: ['sbx'] },
      { key: 'tier', operator: 'in', values: ['a', 'b'] },
      { key: 'gone', operator: '!', values: [] },
    ]);
    expect(selector.matches(labels)).toBe(true);
  });

  it.each([
    ['app=a b', /found 'b'/],
    ['a,', /identifier after ','/],
    [',a', /expected: !, identifier/],
    ['tier in (a', /expected: ',' or '\)'/],
    ['tier in ()', /values set can't be empty/],
    ['tier in a', /expected: '\('/],
    ['-bad=x', /key: Invalid value: "-bad"/],
    ['app=-x', /Invalid value: "-x"/],
    [`app=${'v'.repeat(64)}`, /must be no more than 63 characters/],
    ['n>x', /must be an integer/],
    ['a=b=c', /expected: ',' or 'end of string'/],
    ['!a=b', /expected: ',' or 'end of string'/],
  ])('rejects %j', (selector, message) => {
    expect(() => parseLabelSelector(selector)).toThrow(SelectorParseError);
    expect(() => parseLabelSelector(selector)).toThrow(message);
  });
});
