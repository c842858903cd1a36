import { describe, expect, it } from 'vitest';
import { KubeApiError } from '../api/status.js';
import { boolParam, intParam } from './query-params.js';
import { builtinResources } from '../api/builtin-resources.js';
import { ResourceRegistry } from '../api/resource-registry.js';
import { parseRequest } from './request-info.js';

const query = (text: string): URLSearchParams => new URLSearchParams(text);

describe(boolParam.name, () => {
  // Convert_Slice_string_To_bool: only absence, "0" and "false" (any case) are false.
  it.each(['true', 'True', 'TRUE', '1', 't', 'T', 'yes', 'f', ''])('watch=%j is true, as on a real API server', (value) => {
    expect(boolParam(query(`watch=${value}`), 'watch')).toBe(true);
  });

  it.each(['false', 'False', 'FALSE', 'fAlSe', '0'])('watch=%j is false', (value) => {
    expect(boolParam(query(`watch=${value}`), 'watch')).toBe(false);
  });

  it('is false when absent and reads the first of repeated values', () => {
    expect(boolParam(query('limit=1'), 'watch')).toBe(false);
    expect(boolParam(query('watch=false&watch=true'), 'watch')).toBe(false);
    expect(boolParam(query('watch=True&watch=0'), 'watch')).toBe(true);
  });
});

describe(intParam.name, () => {
  it('reads integers, treats empty as absent and rejects the rest with 400', () => {
    expect(intParam(query('limit=5'), 'limit')).toBe(5);
    expect(intParam(query('limit='), 'limit')).toBeUndefined();
    expect(() => intParam(query('limit=5x'), 'limit')).toThrow(KubeApiError);
  });
});

describe('parseRequest: list or watch', () => {
  it.each([
    ['/api/v1/namespaces/ns/pods?watch=True', 'watch'],
    ['/api/v1/namespaces/ns/pods?watch=true&resourceVersion=5', 'watch'],
    ['/api/v1/pods?watch=1', 'watch'],
    ['/api/v1/namespaces/ns/pods?watch=False', 'list'],
    ['/api/v1/namespaces/ns/pods?watch=0', 'list'],
    ['/api/v1/namespaces/ns/pods', 'list'],
  ])('GET %s → %s', (url, verb) => {
    expect(parseRequest('GET', url, new ResourceRegistry(builtinResources())).verb).toBe(verb);
  });
});
