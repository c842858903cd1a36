import { envVarName, flagTable } from '@cli-mcp/common';
import { KUBERNETES_GROUP, KubernetesSettings, SANDBOX_GROUP, SandboxSettings } from '@cli-mcp/kube';
import { describe, expect, it } from 'vitest';
import { CONTROLLER_FLAGS, ENV_PREFIX } from './controller-flags.js';
import { OPERATOR_GROUP } from './operator-settings.js';
import { loadControllerConfig, type ControllerConfigOutcome } from './load-controller-config.js';

const KUBE = [
  '--namespace', 'cli-mcp', '--instance-name', 'oc', '--sandbox-image', 'quay.io/x/sandbox:1',
  '--kubeconfig-secret', 'cli-mcp-oc-kubeconfig', '--sandbox-service-account', 'cli-mcp-oc-sandbox',
];

const load = (argv: string[], env: Record<string, string> = {}): ControllerConfigOutcome =>
  loadControllerConfig({ argv, env, version: '0.1.0+abc', hostname: 'node-7', randomSuffix: () => 'r4nd' });

function config(argv: string[], env: Record<string, string> = {}) {
  const outcome = load(argv, env);
  if (outcome.kind !== 'run' || outcome.config.mode === 'operator') throw new Error(`expected an instance config, got ${JSON.stringify(outcome)}`);
  return outcome.config;
}

function problems(argv: string[], env: Record<string, string> = {}): readonly string[] {
  const outcome = load(argv, env);
  if (outcome.kind !== 'invalid') throw new Error(`expected problems, got ${outcome.kind}`);
  return outcome.problems;
}

describe(loadControllerConfig.name, () => {
  it('has the documented defaults', () => {
    const c = config(KUBE);
    expect(c.http).toEqual({ address: '127.0.0.1:8081', host: '127.0.0.1', port: 8081 });
    expect(c.identity).toBe('node-7-r4nd');
    expect(c.pool).toEqual({ size: 0, shortfallGraceMs: 300_000 });
    expect(c.gc).toEqual({ idleTimeoutMs: 1_800_000, maxSessionAgeMs: undefined, orphanSecretGraceMs: 600_000 });
    expect(c.leaseDurationMs).toBe(15_000);
    expect(c.podConfig).toMatchObject({ namespace: 'cli-mcp', instanceName: 'oc', image: 'quay.io/x/sandbox:1', resources: { cpuRequest: '100m' } });
    expect(c.logLevel).toBe('info');
  });

  it('reads CLI_MCP_* env vars like the server, flags win; 0 turns --max-session-age off', () => {
    const c = config([...KUBE, '--warm-pool-size', '5'], { CLI_MCP_WARM_POOL_SIZE: '2', CLI_MCP_MAX_SESSION_AGE: '8h', CLI_MCP_IDENTITY: 'pod-a' });
    expect(c.pool.size).toBe(5);
    expect(c.gc.maxSessionAgeMs).toBe(8 * 3_600_000);
    expect(c.identity).toBe('pod-a');
    expect(config([...KUBE, '--max-session-age', '0']).gc.maxSessionAgeMs).toBeUndefined();
  });

  it('gives pool pods the server’s command timeouts (same flags), so their spec matches the server’s pods (C-AG-14)', () => {
    expect(config([...KUBE, '--max-timeout', '10m', '--default-timeout', '90s']).podConfig).toMatchObject({
      maxTimeoutSeconds: 600, defaultTimeoutSeconds: 90, terminationGracePeriodSeconds: 610,
    });
    expect(problems([...KUBE, '--max-timeout', '30s'])).toEqual([
      '--default-timeout (env CLI_MCP_DEFAULT_TIMEOUT): must not exceed --max-timeout (env CLI_MCP_MAX_TIMEOUT); got "60s"',
    ]);
  });

  it('reports every problem at once, each naming its flag and env var, the pod settings included', () => {
    const argv = [
      '--address', 'nowhere', '--warm-pool-size', '-1', '--idle-timeout', 'soon', '--max-session-age', '-5m',
      '--orphan-secret-grace', '1s', '--pool-shortfall-grace', 'x', '--lease-duration', '2500ms', '--log-level', 'loud',
      '--sandbox-cpu-request', 'lots',
    ];
    const found = problems(argv);
    const flagged = argv.filter((a) => a.startsWith('--')).map((a) => a.slice(2));
    for (const name of flagged) {
      expect(found.some((p) => p.includes(`--${name} (env ${envVarName(ENV_PREFIX, name)})`)), `a problem naming --${name}`).toBe(true);
    }
    // The identity flags are required as for the server.
    expect(found).toContain('--namespace (env CLI_MCP_NAMESPACE) is required');
    expect(found).toContain('--sandbox-image (env CLI_MCP_SANDBOX_IMAGE) is required');
  });

  it('uses the server’s sandbox and Kubernetes flag declarations, and --help lists every flag with default and env var', () => {
    for (const spec of flagTable(SandboxSettings, KubernetesSettings)) expect(CONTROLLER_FLAGS).toContainEqual(spec);
    const help = load(['--help', '--bogus']);
    expect(help.kind).toBe('help');
    const text = help.kind === 'help' ? help.text : '';
    expect(text.match(/^\S.*:$/gm)).toEqual(['Controller:', `${SANDBOX_GROUP}:`, `${KUBERNETES_GROUP}:`, `${OPERATOR_GROUP}:`, 'Other:']);
    for (const spec of CONTROLLER_FLAGS) {
      expect(text).toContain(`--${spec.name}`);
      if (!spec.noEnv) expect(text).toContain(envVarName(ENV_PREFIX, spec.name));
      const shown = spec.defaultText ?? spec.default;
      if (shown !== undefined) expect(text).toContain(`default: ${shown}`);
    }
    expect(load(['-v'])).toEqual({ kind: 'version', text: 'sandbox-controller 0.1.0+abc\n' });
  });
});
