import { describe, expect, it } from 'vitest';
import { loadControllerConfig, type ControllerConfigOutcome } from './load-controller-config.js';

const load = (argv: string[], env: Record<string, string> = {}): ControllerConfigOutcome =>
  loadControllerConfig({ argv, env, version: '0.1.0', hostname: 'node-7', randomSuffix: () => 'r4nd' });

describe('loadControllerConfig --operator', () => {
  it('reads the namespace and images from the variables OLM sets, flags winning', () => {
    const outcome = load(['--operator', '--lease-duration', '20s'], { WATCH_NAMESPACE: 'team', RELATED_IMAGE_SERVER: 'quay.io/x/server@sha256:1', RELATED_IMAGE_SANDBOX: 'quay.io/x/sandbox:1', RELATED_IMAGE_EGRESS: 'quay.io/x/egress:1' });
    expect(outcome).toMatchObject({
      kind: 'run',
      config: {
        mode: 'operator', watchNamespace: 'team', identity: 'node-7-r4nd', leaseDurationMs: 20_000,
        images: { server: 'quay.io/x/server@sha256:1', sandbox: 'quay.io/x/sandbox:1', egress: 'quay.io/x/egress:1' },
        timeouts: { maxTimeoutSeconds: 300, defaultTimeoutSeconds: 60 }, orphanSecretGraceMs: 600_000, poolShortfallGraceMs: 300_000,
      },
    });
    expect(load(['--operator', '--watch-namespace', 'mine', '--server-image', 's', '--default-sandbox-image', 'b'], { WATCH_NAMESPACE: 'team' })).toMatchObject({ config: { watchNamespace: 'mine' } });
  });

  it('refuses the single-instance flags (each CR sets them) and names what is missing, all at once', () => {
    const outcome = load(['--operator', '--warm-pool-size', '2', '--sandbox-image', 'x'], { CLI_MCP_IDLE_TIMEOUT: '5m', WATCH_NAMESPACE: 'Not_A_Namespace' });
    expect(outcome.kind === 'invalid' && outcome.problems).toEqual([
      '--sandbox-image (env CLI_MCP_SANDBOX_IMAGE): does not apply with --operator: each CliMcpInstance sets it (spec.sandbox.image (or --default-sandbox-image))',
      '--warm-pool-size (env CLI_MCP_WARM_POOL_SIZE): does not apply with --operator: each CliMcpInstance sets it (spec.sandbox.warmPoolSize)',
      '--idle-timeout (env CLI_MCP_IDLE_TIMEOUT): does not apply with --operator: each CliMcpInstance sets it (spec.sandbox.idleTimeout) [from CLI_MCP_IDLE_TIMEOUT]',
      '--watch-namespace (env CLI_MCP_WATCH_NAMESPACE or WATCH_NAMESPACE): must be a DNS-1123 label (a namespace name) [from WATCH_NAMESPACE]',
      '--server-image (env CLI_MCP_SERVER_IMAGE or RELATED_IMAGE_SERVER) is required with --operator',
      '--default-sandbox-image (env CLI_MCP_DEFAULT_SANDBOX_IMAGE or RELATED_IMAGE_SANDBOX) is required with --operator',
    ]);
  });

  it('lists the operator flags in --help with their OLM variables', () => {
    const help = load(['--help']);
    const text = help.kind === 'help' ? help.text : '';
    expect(text).toContain('Operator (--operator');
    expect(text).toContain('env: CLI_MCP_WATCH_NAMESPACE or WATCH_NAMESPACE');
    expect(text).toContain('env: CLI_MCP_SERVER_IMAGE or RELATED_IMAGE_SERVER');
  });
});
