import { describe, expect, it } from 'vitest';
import { validateSandboxPodConfig } from '@cli-mcp/podspec';
import type { CliMcpInstance } from '../api/climcpinstance.js';
import { resolveInstance, type OperatorDefaults } from './resolve-instance.js';

const DEFAULTS: OperatorDefaults = { namespace: 'team', serverImage: 'quay.io/x/server:1', sandboxImage: 'quay.io/x/sandbox:1', maxTimeoutSeconds: 300, defaultTimeoutSeconds: 60 };
const cr = (spec: CliMcpInstance['spec'], name = 'oc'): CliMcpInstance => ({ metadata: { name, namespace: 'team', uid: 'u1', generation: 1 }, spec });

function resolved(spec: CliMcpInstance['spec'], name?: string) {
  const result = resolveInstance(cr(spec, name), DEFAULTS);
  if (!result.ok) throw new Error(result.errors.join('; '));
  return result.instance;
}

function errors(spec: CliMcpInstance['spec']): string[] {
  const result = resolveInstance(cr(spec), DEFAULTS);
  if (result.ok) throw new Error('expected errors');
  return result.errors;
}

describe(resolveInstance.name, () => {
  it('fills the Go defaults (1 replica, 30m idle, no pool, 100m/500m 128Mi/512Mi) and the operator-named identities', () => {
    const instance = resolved(undefined);
    expect(instance).toMatchObject({ name: 'oc', replicas: 1, warmPoolSize: 0, idleTimeoutMs: 1_800_000, maxSessionAgeMs: undefined, yieldAfter: undefined, proxy: undefined });
    expect(instance.podConfig).toMatchObject({
      namespace: 'team', instanceName: 'oc', image: 'quay.io/x/sandbox:1', serviceAccountName: 'cli-mcp-oc-sandbox', kubeconfigSecret: 'cli-mcp-oc-kubeconfig',
      resources: { cpuRequest: '100m', cpuLimit: '500m', memoryRequest: '128Mi', memoryLimit: '512Mi' }, maxTimeoutSeconds: 300, defaultTimeoutSeconds: 60,
    });
    expect(instance.server).toEqual({ image: 'quay.io/x/server:1', imagePullPolicy: undefined, resources: { requests: { cpu: '100m', memory: '128Mi' }, limits: { cpu: '1', memory: '512Mi' } } });
  });

  it('takes a Go CR as written (int-or-string quantities, env with valueFrom, Go durations like 30m0s) plus our additions', () => {
    const instance = resolved({
      replicas: 2,
      sandbox: {
        image: 'quay.io/acme/oc:4', idleTimeout: '1h0m0s', maxSessionAge: '8h', warmPoolSize: 3, imagePullPolicy: 'IfNotPresent',
        resources: { requests: { cpu: 1, memory: '256Mi' }, limits: { cpu: '2', memory: '1Gi' } },
        env: [{ name: 'AWS_REGION', value: 'us-east-1' }, { name: 'TOKEN', valueFrom: { secretKeyRef: { name: 's', key: 'k' } } }],
      },
      serverContainer: { imagePullPolicy: 'Always', resources: { limits: { memory: '1Gi' } } },
      server: { yieldAfter: '40s' },
    });
    expect(instance).toMatchObject({ replicas: 2, warmPoolSize: 3, idleTimeoutMs: 3_600_000, maxSessionAgeMs: 8 * 3_600_000, yieldAfter: '40s' });
    expect(instance.podConfig).toMatchObject({ image: 'quay.io/acme/oc:4', imagePullPolicy: 'IfNotPresent', resources: { cpuRequest: '1', cpuLimit: '2', memoryRequest: '256Mi', memoryLimit: '1Gi' } });
    expect(instance.podConfig.env).toEqual([{ name: 'AWS_REGION', value: 'us-east-1' }, { name: 'TOKEN', valueFrom: { secretKeyRef: { name: 's', key: 'k' } } }]);
    expect(instance.server).toMatchObject({ imagePullPolicy: 'Always', resources: { limits: { cpu: '1', memory: '1Gi' } } });
  });

  it('builds exactly the pod config the server builds from the same values (so the spec hashes match)', () => {
    const instance = resolved({ sandbox: { resources: { limits: { cpu: '750m' } } } });
    const server = validateSandboxPodConfig({
      namespace: 'team', instanceName: 'oc', image: 'quay.io/x/sandbox:1', serviceAccountName: 'cli-mcp-oc-sandbox', kubeconfigSecret: 'cli-mcp-oc-kubeconfig',
      cpuRequest: '100m', cpuLimit: '750m', memoryRequest: '128Mi', memoryLimit: '512Mi', maxTimeoutSeconds: 300, defaultTimeoutSeconds: 60,
    });
    expect(server.ok && server.config).toEqual(instance.podConfig);
  });

  it('names every problem the schema cannot catch by its CR field, all at once', () => {
    expect(errors({
      replicas: 0,
      sandbox: {
        idleTimeout: 'soon', maxSessionAge: '-1h', warmPoolSize: 1.5,
        resources: { requests: { cpu: '2', memory: '400m' }, limits: { cpu: '1' } },
        env: [{ name: 'A', value: 'x' }, { name: 'A', value: 'y' }, { name: 'SANDBOX_AUTH_TOKEN', value: 'stolen' }],
      },
      serverContainer: { resources: { requests: { memory: '2Gi' }, limits: { memory: '1Gi' } } },
      server: { yieldAfter: '500ms' },
    })).toEqual([
      expect.stringMatching(/^spec\.sandbox\.resources\.requests\.memory: invalid quantity "400m": must be a whole number of bytes/),
      'spec.sandbox.resources.requests.cpu "2" must be less than or equal to spec.sandbox.resources.limits.cpu "1"',
      'spec.sandbox.env: entry 1: duplicate name A (first set by entry 0)',
      'spec.sandbox.env: entry 2: SANDBOX_AUTH_TOKEN is set by the sandbox; the overlay value is ignored',
      'spec.replicas must be an integer between 1 and 50 (got 0)',
      'spec.sandbox.warmPoolSize must be an integer between 0 and 1000 (got 1.5)',
      'spec.sandbox.idleTimeout: invalid duration "soon"',
      'spec.sandbox.maxSessionAge must be between 0s and 8760h (got "-1h")',
      'spec.server.yieldAfter must be 0 (never) or at least 1s',
      'spec.serverContainer.resources.requests.memory "2Gi" must be less than or equal to spec.serverContainer.resources.limits.memory "1Gi"',
    ]);
  });

  it('uses a kubernetes target\'s secretName as the sandboxes\' kubeconfig Secret, and keeps spec.proxy for the egress plan', () => {
    const instance = resolved({ proxy: { targets: [{ type: 'kubernetes', secretName: 'investigation' }, { type: 'allowlist', domains: ['api.example.com'] }] } });
    expect(instance.podConfig.kubeconfigSecret).toBe('investigation');
    expect(instance.proxy?.targets).toHaveLength(2);
  });

  it('accepts a 44-character name (the CRD\'s bound) and refuses what is no label', () => {
    expect(resolved(undefined, 'x'.repeat(44)).podConfig.instanceName).toHaveLength(44);
    const result = resolveInstance(cr(undefined, 'Bad.Name'), DEFAULTS);
    expect(result.ok ? [] : result.errors).toEqual([expect.stringMatching(/^metadata\.name "Bad\.Name" must be a DNS-1123 label/)]);
  });
});
