import { describe, expect, it } from 'vitest';
import {
  DEFAULT_AGENT_PORT,
  DEFAULT_SANDBOX_RESOURCES,
  DEFAULT_TERMINATION_GRACE_PERIOD_SECONDS,
  DEFAULT_TMP_SIZE_LIMIT,
  DEFAULT_WORKSPACE_SIZE_LIMIT,
  type RawSandboxPodConfig,
} from './sandbox-config.js';
import { IMAGE, INSTANCE, KUBECONFIG_SECRET, NAMESPACE, OVERLAY, SERVICE_ACCOUNT, rawConfig } from './testing/fixtures.js';
import { validateSandboxPodConfig, type SandboxPodConfigResult } from './validate-sandbox-config.js';

function errorsOf(raw: RawSandboxPodConfig, names?: Parameters<typeof validateSandboxPodConfig>[1]): string[] {
  const result = validateSandboxPodConfig(raw, names);
  return result.ok ? [] : result.errors;
}

function configOf(result: SandboxPodConfigResult) {
  if (!result.ok) throw new Error(result.errors.join('; '));
  return result.config;
}

// Go TestBuildSandboxConfig (§17.2) and TestDefaultConfigHasNoIdentityDefaults.
describe(validateSandboxPodConfig.name, () => {
  it('requires every identity flag, all reported together in Go order with Go messages', () => {
    expect(errorsOf({})).toEqual([
      '--sandbox-image is required',
      '--namespace is required',
      '--instance-name is required',
      '--kubeconfig-secret is required',
      '--sandbox-service-account is required',
    ]);
  });

  it.each([
    ['image', '--sandbox-image is required'],
    ['namespace', '--namespace is required'],
    ['instanceName', '--instance-name is required'],
    ['kubeconfigSecret', '--kubeconfig-secret is required'],
    ['serviceAccountName', '--sandbox-service-account is required'],
  ] as const)('a blank %s is missing: %s', (field, message) => {
    expect(errorsOf(rawConfig({ [field]: '  ' }))).toEqual([message]);
  });

  it('--sandbox-dns: none by default with the gateway, cluster on request; a bad value or none without the gateway is an error', () => {
    expect(configOf(validateSandboxPodConfig(rawConfig({ egressGateway: true }))).sandboxDns).toBe('none');
    expect(configOf(validateSandboxPodConfig(rawConfig({ egressGateway: true, sandboxDns: ' ' }))).sandboxDns).toBe('none');
    expect(configOf(validateSandboxPodConfig(rawConfig({ egressGateway: true, sandboxDns: 'cluster' }))).sandboxDns).toBe('cluster');
    // Without the gateway nothing about DNS reaches the config (nor the spec hash); cluster is what it has anyway.
    expect(configOf(validateSandboxPodConfig(rawConfig({ sandboxDns: 'cluster' }))).sandboxDns).toBeUndefined();
    expect(errorsOf(rawConfig({ egressGateway: true, sandboxDns: 'None' }))).toEqual(['--sandbox-dns must be none or cluster (got "None")']);
    expect(errorsOf(rawConfig({ sandboxDns: 'none' }))).toEqual(['--sandbox-dns none needs --egress-gateway: without the gateway the sandbox resolves the API server itself']);
  });

  it('has no identity defaults but Go resource defaults, no pull policy and no env', () => {
    const config = configOf(validateSandboxPodConfig(rawConfig()));
    expect(config).toEqual({
      namespace: NAMESPACE,
      instanceName: INSTANCE,
      image: IMAGE,
      imagePullPolicy: undefined,
      serviceAccountName: SERVICE_ACCOUNT,
      kubeconfigSecret: KUBECONFIG_SECRET,
      resources: { cpuRequest: '100m', cpuLimit: '500m', memoryRequest: '128Mi', memoryLimit: '512Mi' },
      env: [],
      workspaceSizeLimit: '1Gi',
      tmpSizeLimit: '256Mi',
      terminationGracePeriodSeconds: 310,
      agentPort: 8090,
      runtimeClassName: undefined,
      maxTimeoutSeconds: 300,
      defaultTimeoutSeconds: 60,
    });
    expect(config.resources).toEqual(DEFAULT_SANDBOX_RESOURCES);
    expect([config.workspaceSizeLimit, config.tmpSizeLimit]).toEqual([DEFAULT_WORKSPACE_SIZE_LIMIT, DEFAULT_TMP_SIZE_LIMIT]);
    expect([config.terminationGracePeriodSeconds, config.agentPort]).toEqual([DEFAULT_TERMINATION_GRACE_PERIOD_SECONDS, DEFAULT_AGENT_PORT]);
  });

  it('treats blank quantity flags as defaults', () => {
    const config = configOf(validateSandboxPodConfig(rawConfig({ cpuRequest: '', cpuLimit: ' ', memoryRequest: '', memoryLimit: '' })));
    expect(config.resources).toEqual(DEFAULT_SANDBOX_RESOURCES);
  });

  it('applies the overlay flags (200m, 1, 256Mi, 1Gi, IfNotPresent, env)', () => {
    const result = validateSandboxPodConfig(rawConfig({ ...OVERLAY, env: '[{"name":"AWS_REGION","value":"us-east-1"}]' }));
    const config = configOf(result);
    expect(config.resources).toEqual({ cpuRequest: '200m', cpuLimit: '1', memoryRequest: '256Mi', memoryLimit: '1Gi' });
    expect(config.imagePullPolicy).toBe('IfNotPresent');
    expect(config.env).toEqual([{ name: 'AWS_REGION', value: 'us-east-1' }]);
    expect(result.warnings).toEqual([]);
  });

  it('accepts an already-decoded env list (e.g. from a CR)', () => {
    const config = configOf(validateSandboxPodConfig(rawConfig({ env: [{ name: 'A', value: '1' }] })));
    expect(config.env).toEqual([{ name: 'A', value: '1' }]);
  });

  it('mentions --sandbox-cpu-request for not-a-quantity', () => {
    expect(errorsOf(rawConfig({ cpuRequest: 'not-a-quantity' }))).toEqual([
      expect.stringMatching(/^--sandbox-cpu-request: invalid quantity "not-a-quantity": /),
    ]);
  });

  it.each(['Sometimes', 'always', 'IFNOTPRESENT'])('mentions --sandbox-image-pull-policy for %j', (policy) => {
    expect(errorsOf(rawConfig({ imagePullPolicy: policy }))).toEqual(['--sandbox-image-pull-policy must be Always, Never, or IfNotPresent']);
  });

  it.each(['Always', 'Never', 'IfNotPresent'] as const)('accepts pull policy %s', (policy) => {
    expect(configOf(validateSandboxPodConfig(rawConfig({ imagePullPolicy: policy }))).imagePullPolicy).toBe(policy);
  });

  it('mentions --sandbox-env for {not json', () => {
    expect(errorsOf(rawConfig({ env: '{not json' }))).toEqual([
      expect.stringMatching(/^--sandbox-env must be a JSON array of Kubernetes EnvVar: /),
    ]);
  });

  it('drops reserved env names with a warning, not an error', () => {
    const result = validateSandboxPodConfig(rawConfig({ env: '[{"name":"HOME","value":"/root"},{"name":"A","value":"1"}]' }));
    expect(configOf(result).env).toEqual([{ name: 'A', value: '1' }]);
    expect(result.warnings).toEqual(['--sandbox-env: entry 0: HOME is set by the sandbox; the overlay value is ignored']);
  });

  it('reports env name errors', () => {
    expect(errorsOf(rawConfig({ env: '[{"name":"A"},{"name":"A"}]' }))).toEqual([
      '--sandbox-env: entry 1: duplicate name A (first set by entry 0)',
    ]);
  });

  it('names both flags when a request exceeds its limit (C-K8S-3)', () => {
    expect(errorsOf(rawConfig({ cpuRequest: '2', cpuLimit: '1', memoryRequest: '1Gi', memoryLimit: '1023Mi' }))).toEqual([
      '--sandbox-cpu-request "2" must be less than or equal to --sandbox-cpu-limit "1"',
      '--sandbox-memory-request "1Gi" must be less than or equal to --sandbox-memory-limit "1023Mi"',
    ]);
  });

  it('says when the exceeded limit is the default', () => {
    expect(errorsOf(rawConfig({ cpuRequest: '1' }))).toEqual([
      '--sandbox-cpu-request "1" must be less than or equal to --sandbox-cpu-limit "500m" (default)',
    ]);
  });

  it('compares exactly: equal values in different units are fine', () => {
    expect(errorsOf(rawConfig({ cpuRequest: '1', cpuLimit: '1000m', memoryRequest: '1Gi', memoryLimit: '1024Mi' }))).toEqual([]);
  });

  it('skips the comparison when either side is invalid (one error per cause)', () => {
    expect(errorsOf(rawConfig({ cpuRequest: 'x', cpuLimit: '1m' }))).toHaveLength(1);
  });

  it('rejects negative requests and zero limits', () => {
    expect(errorsOf(rawConfig({ cpuRequest: '-1', memoryLimit: '0' }))).toEqual([
      '--sandbox-cpu-request: invalid quantity "-1": must not be negative',
      '--sandbox-memory-limit: invalid quantity "0": must be greater than zero',
    ]);
  });

  it('reports every problem at once (C-CFG-1)', () => {
    const errors = errorsOf({
      namespace: 'Bad_NS',
      instanceName: 'x'.repeat(50),
      image: 'has space',
      serviceAccountName: 'SA',
      kubeconfigSecret: 'ok',
      cpuRequest: 'not-a-quantity',
      cpuLimit: '-1',
      memoryRequest: '400m',
      memoryLimit: '1Ki5',
      imagePullPolicy: 'Sometimes',
      env: '{not json',
      workspaceSizeLimit: '0',
      tmpSizeLimit: 'lots',
      terminationGracePeriodSeconds: '-5',
      agentPort: 70000,
      runtimeClassName: 'Not Valid',
    });
    expect(errors).toEqual([
      '--sandbox-image "has space" must not contain whitespace',
      '--namespace "Bad_NS" must be a DNS-1123 label (lowercase letters, digits and "-", at most 63 characters)',
      `--instance-name "${'x'.repeat(50)}" must be at most 44 characters (got 50)`,
      '--sandbox-service-account "SA" must be a DNS-1123 subdomain (lowercase letters, digits, "-" and ".", at most 253 characters)',
      expect.stringMatching(/^--sandbox-cpu-request: invalid quantity "not-a-quantity"/),
      '--sandbox-cpu-limit: invalid quantity "-1": must not be negative',
      expect.stringMatching(/^--sandbox-memory-request: invalid quantity "400m": must be a whole number of bytes/),
      "--sandbox-memory-limit: invalid quantity \"1Ki5\": unable to parse quantity's suffix",
      '--sandbox-image-pull-policy must be Always, Never, or IfNotPresent',
      expect.stringMatching(/^--sandbox-env must be a JSON array of Kubernetes EnvVar: /),
      '--sandbox-workspace-size-limit: invalid quantity "0": must be greater than zero',
      expect.stringMatching(/^--sandbox-tmp-size-limit: invalid quantity "lots"/),
      '--sandbox-termination-grace-period must be a non-negative integer number of seconds (got "-5")',
      '--sandbox-agent-port must be an integer between 1 and 65535 (got 70000)',
      '--sandbox-runtime-class "Not Valid" must be a DNS-1123 subdomain (lowercase letters, digits, "-" and ".", at most 253 characters)',
    ]);
  });

  it('names fields with the caller\'s flag names (e.g. flag and env var)', () => {
    expect(errorsOf({ ...rawConfig(), namespace: undefined }, { namespace: '--namespace / CLI_MCP_NAMESPACE' })).toEqual([
      '--namespace / CLI_MCP_NAMESPACE is required',
    ]);
  });

  it('parses numeric settings given as strings or numbers', () => {
    const config = configOf(
      validateSandboxPodConfig(rawConfig({ terminationGracePeriodSeconds: '0', agentPort: 9000, runtimeClassName: 'gvisor', workspaceSizeLimit: '5Gi', tmpSizeLimit: '64Mi' })),
    );
    expect(config).toMatchObject({ terminationGracePeriodSeconds: 0, agentPort: 9000, runtimeClassName: 'gvisor', workspaceSizeLimit: '5Gi', tmpSizeLimit: '64Mi' });
  });

  it('carries the server timeouts (C-AG-14); the default grace period is the max timeout + 10 s', () => {
    const config = configOf(validateSandboxPodConfig(rawConfig({ maxTimeoutSeconds: 600, defaultTimeoutSeconds: '90' })));
    expect(config).toMatchObject({ maxTimeoutSeconds: 600, defaultTimeoutSeconds: 90, terminationGracePeriodSeconds: 610 });
    expect(configOf(validateSandboxPodConfig(rawConfig({ maxTimeoutSeconds: 600, terminationGracePeriodSeconds: 5 }))).terminationGracePeriodSeconds).toBe(5);
  });

  it('rejects timeouts the agent would refuse to start with, naming the flags', () => {
    expect(errorsOf(rawConfig({ maxTimeoutSeconds: 30 }))).toEqual(['--default-timeout must not exceed --max-timeout']);
    expect(errorsOf(rawConfig({ maxTimeoutSeconds: 0, defaultTimeoutSeconds: '1.5' }))).toEqual([
      '--max-timeout must be an integer number of seconds between 1 and 86400 (got 0)',
      '--default-timeout must be an integer number of seconds between 1 and 86400 (got "1.5")',
    ]);
    expect(errorsOf(rawConfig({ maxTimeoutSeconds: 86_401 }))).toHaveLength(1);
    expect(errorsOf(rawConfig({ maxTimeoutSeconds: 30, defaultTimeoutSeconds: 30 }))).toEqual([]);
  });

  it.each([['1.5'], ['abc'], [1.5], [-1]])('rejects grace period %j', (value) => {
    expect(errorsOf(rawConfig({ terminationGracePeriodSeconds: value }))).toHaveLength(1);
  });

  it.each([[0], ['0'], [65536], ['80x']])('rejects agent port %j', (value) => {
    expect(errorsOf(rawConfig({ agentPort: value }))).toHaveLength(1);
  });
});
