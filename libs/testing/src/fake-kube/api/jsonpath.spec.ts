import { describe, expect, it } from 'vitest';
import { evaluateJsonPath } from './jsonpath.js';

const object = {
  metadata: { name: 'w', labels: { 'app.kubernetes.io/name': 'x' } },
  spec: { replicas: 2, ports: [{ port: 1 }, { port: 2 }] },
  status: { conditions: [{ type: 'Available', status: 'False' }, { type: 'Ready', status: 'True', ok: true }] },
};

describe(evaluateJsonPath.name, () => {
  it.each([
    ['.spec.replicas', [2]],
    ['{.spec.replicas}', [2]],
    ['.spec.ports[1].port', [2]],
    ['.spec.ports[-1].port', [2]],
    ['.spec.ports[*].port', [1, 2]],
    ['.status.conditions[?(@.type=="Ready")].status', ['True']],
    [".status.conditions[?(@.type!='Ready')].type", ['Available']],
    ['.status.conditions[?(@.ok==true)].type', ['Ready']],
    [".metadata.labels['app.kubernetes.io/name']", ['x']],
    ['.spec.missing', []],
    ['.spec.ports[5]', []],
  ])('%s', (path, expected) => {
    expect(evaluateJsonPath(object, path)).toEqual(expected);
  });

  it('refuses what it does not understand', () => {
    expect(() => evaluateJsonPath(object, 'spec')).toThrow(/unrecognized JSONPath/);
    expect(() => evaluateJsonPath(object, '.spec.ports[0')).toThrow(/unterminated/);
  });
});
