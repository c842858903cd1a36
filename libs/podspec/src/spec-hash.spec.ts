import { describe, expect, it } from 'vitest';
import type { RawSandboxPodConfig } from './sandbox-config.js';
import { canonicalJson, sandboxSpecHash } from './spec-hash.js';
import { sandboxConfig } from './testing/fixtures.js';

describe(sandboxSpecHash.name, () => {
  const base = sandboxSpecHash(sandboxConfig());

  it('is 16 lowercase hex characters and stable', () => {
    expect(base).toMatch(/^[0-9a-f]{16}$/);
    expect(sandboxSpecHash(sandboxConfig())).toBe(base);
  });

  it.each<[string, RawSandboxPodConfig]>([
    ['image', { image: 'quay.io/other:1' }],
    ['pull policy', { imagePullPolicy: 'Always' }],
    ['cpu request', { cpuRequest: '200m' }],
    ['cpu limit', { cpuLimit: '1' }],
    ['memory request', { memoryRequest: '256Mi' }],
    ['memory limit', { memoryLimit: '1Gi' }],
    ['env', { env: '[{"name":"A","value":"1"}]' }],
    ['workspace size limit', { workspaceSizeLimit: '2Gi' }],
    ['tmp size limit', { tmpSizeLimit: '128Mi' }],
    ['service account', { serviceAccountName: 'other-sa' }],
    ['kubeconfig secret', { kubeconfigSecret: 'other-kubeconfig' }],
    ['grace period', { terminationGracePeriodSeconds: 30 }],
    ['agent port', { agentPort: 9000 }],
    ['runtime class', { runtimeClassName: 'gvisor' }],
    ['max timeout (C-AG-14)', { maxTimeoutSeconds: 600, terminationGracePeriodSeconds: 310 }],
    ['default timeout', { defaultTimeoutSeconds: 30 }],
  ])('changes with the %s', (_field, overrides) => {
    expect(sandboxSpecHash(sandboxConfig(overrides))).not.toBe(base);
  });

  it('ignores what does not reach the pod spec: namespace and instance', () => {
    expect(sandboxSpecHash(sandboxConfig({ namespace: 'elsewhere', instanceName: 'aws' }))).toBe(base);
  });

  it('ignores reserved overlay entries, which never reach the pod', () => {
    expect(sandboxSpecHash({ ...sandboxConfig(), env: [{ name: 'HOME', value: '/root' }] })).toBe(base);
  });

  it('does not depend on object key order', () => {
    const a = sandboxConfig({ env: '[{"name":"A","valueFrom":{"secretKeyRef":{"name":"s","key":"k"}}}]' });
    const b = sandboxConfig({ env: '[{"valueFrom":{"secretKeyRef":{"key":"k","name":"s"}},"name":"A"}]' });
    expect(sandboxSpecHash(b)).toBe(sandboxSpecHash(a));
  });

  it('depends on env order (later entries can refer to earlier ones)', () => {
    const ab = sandboxConfig({ env: '[{"name":"A","value":"1"},{"name":"B","value":"$(A)"}]' });
    const ba = sandboxConfig({ env: '[{"name":"B","value":"$(A)"},{"name":"A","value":"1"}]' });
    expect(sandboxSpecHash(ab)).not.toBe(sandboxSpecHash(ba));
  });
});

describe(canonicalJson.name, () => {
  it('sorts keys at every level, keeps arrays in order and drops undefined members', () => {
    expect(canonicalJson({ b: 1, a: { d: [3, { z: 1, y: 2 }], c: undefined } })).toBe('{"a":{"d":[3,{"y":2,"z":1}]},"b":1}');
  });
});
