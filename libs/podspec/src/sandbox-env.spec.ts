import { describe, expect, it } from 'vitest';
import { checkSandboxEnv, decodeSandboxEnv, isReservedEnvName, overlayEnv, parseSandboxEnv } from './sandbox-env.js';

const FLAG = '--sandbox-env';
const PREFIX = '--sandbox-env must be a JSON array of Kubernetes EnvVar: ';

describe(isReservedEnvName.name, () => {
  it.each(['KUBECONFIG', 'HOME', 'SANDBOX_AUTH_TOKEN', 'SANDBOX_AGENT_PORT', 'SANDBOX_ANYTHING'])('reserves %s', (name) => {
    expect(isReservedEnvName(name)).toBe(true);
  });

  it.each(['PATH', 'AWS_REGION', 'sandbox_x', 'MY_SANDBOX_X', 'HOMEDIR'])('leaves %s to the overlay', (name) => {
    expect(isReservedEnvName(name)).toBe(false);
  });
});

describe(parseSandboxEnv.name, () => {
  it.each(['', '   ', '\n\t'])('treats blank %j as no overlay (Go §7.2)', (json) => {
    expect(parseSandboxEnv(json, FLAG)).toEqual({ ok: true, value: [] });
  });

  it('decodes the Go test overlay', () => {
    expect(parseSandboxEnv('[{"name":"AWS_REGION","value":"us-east-1"}]', FLAG)).toEqual({
      ok: true,
      value: [{ name: 'AWS_REGION', value: 'us-east-1' }],
    });
  });

  it('keeps valueFrom as given and treats a null value as absent', () => {
    const json = '[{"name":"TOKEN","valueFrom":{"secretKeyRef":{"name":"s","key":"k"}}},{"name":"E","value":null}]';
    expect(parseSandboxEnv(json, FLAG)).toEqual({
      ok: true,
      value: [{ name: 'TOKEN', valueFrom: { secretKeyRef: { name: 's', key: 'k' } } }, { name: 'E' }],
    });
  });

  it('reports malformed JSON with the Go-style prefix', () => {
    const result = parseSandboxEnv('{not json', FLAG);
    expect(result.ok).toBe(false);
    expect(!result.ok && result.error.startsWith(PREFIX)).toBe(true);
  });

  it.each([
    ['{"name":"A"}', 'expected an array, got object'],
    ['"A=1"', 'expected an array, got string'],
    ['null', 'expected an array, got null'],
    ['[1]', 'entry 0: expected an object, got number'],
    ['[[]]', 'entry 0: expected an object, got an array'],
    ['[{"value":"x"}]', 'entry 0: "name" must be a string'],
    ['[{"name":"A","value":1}]', 'entry 0: "value" must be a string'],
    ['[{"name":"A","valeu":"x"}]', 'entry 0: unknown field "valeu"'],
    ['[{"name":"A","valueFrom":"x"}]', 'entry 0: "valueFrom" must be an object, got string'],
    ['[{"name":"A","valueFrom":{}}]', 'entry 0: "valueFrom" must have exactly one of secretKeyRef, configMapKeyRef, fieldRef, resourceFieldRef, fileKeyRef'],
    ['[{"name":"A","valueFrom":{"secretKeyRef":{"name":"s"}}}]', 'entry 0: "valueFrom.secretKeyRef.key" is required'],
    ['[{"name":"A","valueFrom":{"fieldRef":"x"}}]', 'entry 0: "valueFrom.fieldRef" must be an object'],
    ['[{"name":"A","value":"v","valueFrom":{"fieldRef":{"fieldPath":"metadata.name"}}}]', 'entry 0: "value" and "valueFrom" are mutually exclusive'],
    ['[{"name":"A"},{"name":2,"x":1}]', 'entry 1: unknown field "x"; entry 1: "name" must be a string'],
  ])('rejects %s', (json, reason) => {
    expect(parseSandboxEnv(json, FLAG)).toEqual({ ok: false, error: `${PREFIX}${reason}` });
  });

  it('uses the given flag name', () => {
    const result = parseSandboxEnv('{', 'spec.sandbox.env');
    expect(!result.ok && result.error.startsWith('spec.sandbox.env must be a JSON array')).toBe(true);
  });
});

describe(decodeSandboxEnv.name, () => {
  it('copies entries so later changes to the input do not leak in', () => {
    const input = [{ name: 'A', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } }];
    const result = decodeSandboxEnv(input, FLAG);
    input[0]!.valueFrom.fieldRef.fieldPath = 'changed';
    expect(result).toEqual({ ok: true, value: [{ name: 'A', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } }] });
  });
});

describe(checkSandboxEnv.name, () => {
  it('keeps valid entries in order and ignores reserved names with a warning (Go §6.3)', () => {
    const result = checkSandboxEnv(
      [
        { name: 'B', value: '1' },
        { name: 'HOME', value: '/root' },
        { name: 'A', value: '2' },
        { name: 'SANDBOX_AGENT_PORT', value: '1' },
      ],
      FLAG,
    );
    expect(result.env).toEqual([
      { name: 'B', value: '1' },
      { name: 'A', value: '2' },
    ]);
    expect(result.errors).toEqual([]);
    expect(result.warnings).toEqual([
      '--sandbox-env: entry 1: HOME is set by the sandbox; the overlay value is ignored',
      '--sandbox-env: entry 3: SANDBOX_AGENT_PORT is set by the sandbox; the overlay value is ignored',
    ]);
  });

  it('rejects invalid and duplicate names (Go §18.18)', () => {
    const result = checkSandboxEnv(
      [{ name: '' }, { name: '1ABC' }, { name: 'A B' }, { name: 'X' }, { name: 'X', value: 'again' }, { name: 'my.var-1' }],
      FLAG,
    );
    expect(result.errors).toEqual([
      '--sandbox-env: entry 0: invalid name "" (must match ^[-._a-zA-Z][-._a-zA-Z0-9]*$)',
      '--sandbox-env: entry 1: invalid name "1ABC" (must match ^[-._a-zA-Z][-._a-zA-Z0-9]*$)',
      '--sandbox-env: entry 2: invalid name "A B" (must match ^[-._a-zA-Z][-._a-zA-Z0-9]*$)',
      '--sandbox-env: entry 4: duplicate name X (first set by entry 3)',
    ]);
    expect(result.env.map((e) => e.name)).toEqual(['X', 'my.var-1']);
  });
});

describe(overlayEnv.name, () => {
  it('skips reserved names, keeps order and valueFrom, and copies', () => {
    const overlay = [
      { name: 'KUBECONFIG', value: '/x' },
      { name: 'Z', valueFrom: { secretKeyRef: { name: 's', key: 'k' } } },
      { name: 'SANDBOX_AUTH_TOKEN', value: 'stolen' },
      { name: 'A', value: '1' },
    ];
    const env = overlayEnv(overlay);
    expect(env).toEqual([overlay[1], overlay[3]]);
    expect(env[0]).not.toBe(overlay[1]);
  });
});
