import { KUBERNETES_GROUP, SANDBOX_GROUP } from '@cli-mcp/kube';
import { describe, expect, it } from 'vitest';
import { envVarName } from '@cli-mcp/common';
import { loadServerConfig, type ConfigEnvironment, type ConfigOutcome } from './load-server-config.js';
import type { ServerConfig } from './server-config.js';
import { ENV_PREFIX, SERVER_FLAGS } from './server-flags.js';

const FILES: Record<string, string> = {
  '/etc/cli-mcp/token': '  s3cret-token \n',
  '/etc/cli-mcp/empty': ' \n',
  '/etc/cli-mcp/instructions.md': 'Use oc and kubectl.\n',
  '/etc/cli-mcp/hmac.key': 'k'.repeat(40),
  '/etc/cli-mcp/short.key': 'short\n',
};

function environment(argv: string[], env: Record<string, string> = {}): ConfigEnvironment {
  return {
    argv,
    env,
    homeDir: '/users/ada',
    cwd: '/srv',
    version: '0.1.0+abc12345',
    readFile: async (path) => {
      const text = FILES[path];
      if (text === undefined) throw new Error(`ENOENT: no such file or directory, open '${path}'`);
      return text;
    },
    randomSuffix: () => 'r4nd0m',
  };
}

const load = (argv: string[], env: Record<string, string> = {}): Promise<ConfigOutcome> => loadServerConfig(environment(argv, env));

async function config(argv: string[], env: Record<string, string> = {}): Promise<ServerConfig> {
  const outcome = await load(argv, env);
  if (outcome.kind !== 'run') throw new Error(`expected a config, got ${JSON.stringify(outcome)}`);
  return outcome.config;
}

async function problems(argv: string[], env: Record<string, string> = {}): Promise<readonly string[]> {
  const outcome = await load(argv, env);
  if (outcome.kind !== 'invalid') throw new Error(`expected problems, got ${outcome.kind}`);
  return outcome.problems;
}

describe(loadServerConfig.name, () => {
  it('has the documented defaults', async () => {
    const c = await config([]);
    expect(c.transport).toBe('stdio');
    expect(c.backend).toBe('local');
    expect(c.stdioSessionId).toBe('stdio-r4nd0m');
    expect(c.http).toMatchObject({ address: '127.0.0.1:8080', host: '127.0.0.1', port: 8080, loopback: true, authToken: undefined });
    expect(c.http.allowedHosts).toEqual({ any: false, names: [] });
    expect(c.tool).toMatchObject({
      defaultTimeoutSeconds: 60,
      maxTimeoutSeconds: 300,
      resultFormat: 'text',
      maxOutputChars: 30_000,
      progressIntervalMs: 5000,
    });
    expect(c.tool.instructions).toContain('/workspace');
    expect(c.cacheTtlMs).toBe(30_000);
    expect(c.shutdownGraceMs).toBe(310_000);
    expect(c.hmacKey).toEqual({ path: '/users/ada/.local/state/cli-mcp-server/hmac.key', generate: true });
    expect(c.local).toEqual({
      stateDir: '/users/ada/.local/state/cli-mcp-server',
      sandboxDir: '/users/ada/.local/state/cli-mcp-server/stdio/stdio-r4nd0m',
      resetState: false,
      stdioSessionGenerated: true,
      isolation: 'auto',
      network: 'auto',
      readOnlyBinds: [],
      maxSessions: 32,
      idleTimeoutMs: 1_800_000,
      warmPoolSize: 0,
    });
    expect(c.readyTimeoutMs).toBe(60_000);
    expect(c.kubernetes).toMatchObject({ activityIntervalMs: 30_000, namespace: undefined });
    expect(c.logLevel).toBe('info');
  });

  it('reads every flag from CLI_MCP_* env vars, and command-line flags win', async () => {
    const env = {
      CLI_MCP_TRANSPORT: 'http',
      CLI_MCP_ADDRESS: '127.0.0.1:9000',
      CLI_MCP_DEFAULT_TIMEOUT: '30s',
      CLI_MCP_MAX_OUTPUT_CHARS: '5000',
      CLI_MCP_RESULT_FORMAT: 'json',
    };
    const fromEnv = await config([], env);
    expect(fromEnv.transport).toBe('http');
    expect(fromEnv.http.port).toBe(9000);
    expect(fromEnv.tool).toMatchObject({ defaultTimeoutSeconds: 30, maxOutputChars: 5000, resultFormat: 'json' });
    const flagsWin = await config(['--address', '127.0.0.1:9001', '--default-timeout=45s', '--result-format', 'text'], env);
    expect(flagsWin.http.port).toBe(9001);
    expect(flagsWin.tool).toMatchObject({ defaultTimeoutSeconds: 45, resultFormat: 'text', maxOutputChars: 5000 });
  });

  it('names the flag and its env var in every value problem, and reports all of them at once', async () => {
    const argv = [
      '--transport', 'websocket',
      '--backend', 'docker',
      '--default-timeout', 'soon',
      '--max-timeout', '1.5s',
      '--shutdown-grace', '-1s',
      '--result-format', 'xml',
      '--max-output-chars', '10',
      '--progress-interval', '10s',
      '--instructions-file', '/missing.md',
      '--hmac-key-file', '/missing.key',
      '--local-isolation', 'docker',
      '--local-network', 'bridge',
      '--max-sessions', 'many',
      '--idle-timeout', '0',
      '--warm-pool-size', '-1',
      '--cache-ttl', '1d',
      '--ready-timeout', 'x',
      '--activity-interval', 'y',
      '--log-level', 'loud',
    ];
    const found = await problems(argv);
    const flagged = new Set(argv.filter((arg) => arg.startsWith('--')).map((arg) => arg.slice(2)));
    expect(found).toHaveLength(flagged.size);
    for (const name of flagged) {
      const line = found.find((problem) => problem.startsWith(`--${name} (env ${envVarName(ENV_PREFIX, name)}): `));
      expect(line, `a problem naming --${name}`).toBeDefined();
    }
  });

  it('says when a bad value came from the environment', async () => {
    expect(await problems([], { CLI_MCP_MAX_TIMEOUT: 'forever' })).toEqual([
      '--max-timeout (env CLI_MCP_MAX_TIMEOUT): invalid duration "forever"; use Go syntax such as 90s, 5m or 1h30m [from CLI_MCP_MAX_TIMEOUT]',
    ]);
  });

  it('reports unknown flags and stray arguments together with value problems', async () => {
    expect(await problems(['--bogus', 'serve', '--max-output-chars', 'lots'])).toEqual([
      'unknown flag --bogus (see --help)',
      'unexpected argument "serve" (flags start with --)',
      '--max-output-chars (env CLI_MCP_MAX_OUTPUT_CHARS): must be a whole number; got "lots"',
    ]);
  });

  describe('transport rules (Go TestValidateTransportFlags, re-expressed)', () => {
    it('accepts http on loopback, with or without the Go --stateless flag', async () => {
      expect((await config(['--transport', 'http', '--stateless'])).transport).toBe('http');
      expect((await config(['--transport', 'http'])).transport).toBe('http');
    });

    it('accepts stdio, and --stateless there too (it has no effect)', async () => {
      expect((await config(['--transport', 'stdio'])).transport).toBe('stdio');
      expect((await config(['--stateless'])).transport).toBe('stdio');
    });

    it('refuses an unsupported transport', async () => {
      expect(await problems(['--transport', 'websocket'])).toEqual([
        '--transport (env CLI_MCP_TRANSPORT): must be one of the following values: stdio, http; got "websocket"',
      ]);
    });

    it('refuses a non-loopback HTTP address without --auth-token-file, naming both flags', async () => {
      const [problem] = await problems(['--transport', 'http', '--address', '0.0.0.0:8080']);
      expect(problem).toBe(
        'HTTP transport requires a loopback --address (env CLI_MCP_ADDRESS) (got "0.0.0.0:8080") unless ' +
          '--auth-token-file (env CLI_MCP_AUTH_TOKEN_FILE) sets an authentication boundary',
      );
    });

    it('accepts a non-loopback HTTP address with an auth token, trimmed', async () => {
      const c = await config(['--transport', 'http', '--address', '0.0.0.0:8080', '--auth-token-file', '/etc/cli-mcp/token']);
      expect(c.http).toMatchObject({ host: '0.0.0.0', port: 8080, loopback: false, authToken: 's3cret-token' });
    });

    it('warns when a non-loopback address has no --allowed-hosts (every Host naming it by DNS would get 403)', async () => {
      const bare = await load(['--transport', 'http', '--address', '0.0.0.0:8080', '--auth-token-file', '/etc/cli-mcp/token']);
      expect(bare.kind === 'run' && bare.warnings).toEqual([
        '--address (env CLI_MCP_ADDRESS) is not loopback but --allowed-hosts (env CLI_MCP_ALLOWED_HOSTS) is empty: requests whose ' +
          'Host is a DNS name other than a loopback name are refused with 403 (DNS-rebinding protection; IP addresses pass); list the names clients use',
      ]);
      const listed = await load(['--transport', 'http', '--address', '0.0.0.0:8080', '--auth-token-file', '/etc/cli-mcp/token', '--allowed-hosts', 'svc']);
      expect(listed.kind === 'run' && listed.warnings).toEqual([]);
    });

    it('ignores --address for stdio, as Go did', async () => {
      expect((await config(['--address', 'not an address'])).transport).toBe('stdio');
    });

    it('refuses malformed addresses and empty or unreadable token files', async () => {
      expect(await problems(['--transport', 'http', '--address', 'localhost'])).toEqual([
        '--address (env CLI_MCP_ADDRESS): missing port in address "localhost"; expected host:port such as 127.0.0.1:8080',
      ]);
      expect(await problems(['--transport', 'http', '--auth-token-file', '/etc/cli-mcp/empty'])).toEqual([
        '--auth-token-file (env CLI_MCP_AUTH_TOKEN_FILE): /etc/cli-mcp/empty is empty or whitespace-only',
      ]);
      const [unreadable] = await problems(['--transport', 'http', '--auth-token-file', '/nope']);
      expect(unreadable).toMatch(/^--auth-token-file \(env CLI_MCP_AUTH_TOKEN_FILE\): cannot read \/nope: ENOENT/);
    });

    it('accepts port 0 (ephemeral) and IPv6 loopback', async () => {
      expect((await config(['--transport', 'http', '--address', '127.0.0.1:0'])).http.port).toBe(0);
      expect((await config(['--transport', 'http', '--address', '[::1]:8080'])).http).toMatchObject({ host: '::1', loopback: true });
    });
  });

  it('parses --allowed-hosts as names or *', async () => {
    expect((await config(['--allowed-hosts', 'cli-mcp.tarsy.svc, Proxy.Example:8443'])).http.allowedHosts).toEqual({
      any: false,
      names: ['cli-mcp.tarsy.svc', 'proxy.example'],
    });
    expect((await config(['--allowed-hosts', '*'])).http.allowedHosts).toEqual({ any: true });
    expect(await problems(['--allowed-hosts', 'a b'])).toEqual(['--allowed-hosts (env CLI_MCP_ALLOWED_HOSTS): "a b" is not a host name']);
  });

  it('--yield-after: 50 s by default, 0 turns it off, from the env too; a value under 1 s is refused (C-MCP-11)', async () => {
    expect((await config([])).tool.yieldAfterMs).toBe(50_000);
    expect((await config(['--yield-after', '0'])).tool.yieldAfterMs).toBe(0);
    expect((await config(['--yield-after', '20s'])).tool.yieldAfterMs).toBe(20_000);
    expect((await config([], { CLI_MCP_YIELD_AFTER: '30s' })).tool.yieldAfterMs).toBe(30_000);
    expect(await problems(['--yield-after', '500ms'])).toEqual(['--yield-after (env CLI_MCP_YIELD_AFTER): must be 0 (never) or at least 1s; got "500ms"']);
  });

  it('validates timeouts against each other and derives the shutdown grace from --max-timeout', async () => {
    expect(await problems(['--default-timeout', '10m', '--max-timeout', '5m'])).toEqual([
      '--default-timeout (env CLI_MCP_DEFAULT_TIMEOUT): must not exceed --max-timeout (env CLI_MCP_MAX_TIMEOUT); got "10m"',
    ]);
    expect((await config(['--max-timeout', '2m'])).shutdownGraceMs).toBe(130_000);
    expect((await config(['--max-timeout', '2m', '--shutdown-grace', '5s'])).shutdownGraceMs).toBe(5000);
  });

  it('uses --session-id for stdio, validates it, and refuses it for http', async () => {
    expect((await config(['--session-id', 'inv-42'])).stdioSessionId).toBe('inv-42');
    expect((await config([], { CLI_MCP_SESSION_ID: 'from-env' })).stdioSessionId).toBe('from-env');
    expect(await problems(['--session-id', 'Bad_ID'])).toEqual([
      '--session-id (env CLI_MCP_SESSION_ID): "Bad_ID" is not an RFC 1123 label (a-z, 0-9 and "-", 1-63 characters)',
    ]);
    expect(await problems(['--transport', 'http', '--session-id', 'x'])).toEqual([
      '--session-id (env CLI_MCP_SESSION_ID): is only used with --transport stdio (HTTP clients send an X-Session-ID header)',
    ]);
  });

  const kubeFlags = [
    '--backend', 'kubernetes', '--hmac-key-file', '/etc/cli-mcp/hmac.key', '--namespace', 'cli-mcp', '--instance-name', 'oc',
    '--sandbox-image', 'quay.io/x/sandbox:1', '--kubeconfig-secret', 'cli-mcp-oc-kubeconfig', '--sandbox-service-account', 'cli-mcp-oc-sandbox',
  ];

  it('--backend kubernetes requires the identity flags and a shared HMAC key, each named with its env var (C-K8S-9)', async () => {
    expect(await problems(['--backend', 'kubernetes'])).toEqual([
      '--hmac-key-file (env CLI_MCP_HMAC_KEY_FILE) is required with --backend kubernetes',
      '--sandbox-image (env CLI_MCP_SANDBOX_IMAGE) is required',
      '--namespace (env CLI_MCP_NAMESPACE) is required',
      '--instance-name (env CLI_MCP_INSTANCE_NAME) is required',
      '--kubeconfig-secret (env CLI_MCP_KUBECONFIG_SECRET) is required',
      '--sandbox-service-account (env CLI_MCP_SANDBOX_SERVICE_ACCOUNT) is required',
    ]);
  });

  it('validates the sandbox pod settings with libs/podspec and keeps the result', async () => {
    const c = await config([...kubeFlags, '--sandbox-cpu-request', '200m', '--sandbox-memory-limit', '1Gi', '--sandbox-runtime-class', 'gvisor']);
    expect(c.kubernetes.podConfig).toMatchObject({
      namespace: 'cli-mcp', instanceName: 'oc', image: 'quay.io/x/sandbox:1', runtimeClassName: 'gvisor',
      resources: { cpuRequest: '200m', memoryLimit: '1Gi' },
    });
    expect(await problems([...kubeFlags, '--sandbox-cpu-request', 'not-a-quantity', '--sandbox-image-pull-policy', 'Sometimes'])).toEqual([
      expect.stringContaining('--sandbox-cpu-request (env CLI_MCP_SANDBOX_CPU_REQUEST): invalid quantity "not-a-quantity"'),
      '--sandbox-image-pull-policy (env CLI_MCP_SANDBOX_IMAGE_PULL_POLICY) must be Always, Never, or IfNotPresent',
    ]);
    expect(await problems([...kubeFlags, '--sandbox-cpu-request', '2', '--sandbox-cpu-limit', '1'])).toEqual([
      expect.stringMatching(/--sandbox-cpu-request \(env CLI_MCP_SANDBOX_CPU_REQUEST\).*--sandbox-cpu-limit \(env CLI_MCP_SANDBOX_CPU_LIMIT\)/),
    ]);
  });

  it('--egress-gateway (or CLI_MCP_EGRESS_GATEWAY) puts the sandboxes behind the egress gateway; off by default', async () => {
    expect((await config(kubeFlags)).kubernetes.podConfig!.egressGateway).toBeUndefined();
    expect((await config([...kubeFlags, '--egress-gateway'])).kubernetes.podConfig!.egressGateway).toBe(true);
    expect((await config([...kubeFlags, '--egress-gateway=false'])).kubernetes.podConfig!.egressGateway).toBeUndefined();
  });

  it('gives the sandbox pods the server\'s timeouts, so the agent caps at --max-timeout (C-AG-14)', async () => {
    const c = await config([...kubeFlags, '--max-timeout', '10m', '--default-timeout', '90s']);
    expect(c.kubernetes.podConfig).toMatchObject({ maxTimeoutSeconds: 600, defaultTimeoutSeconds: 90, terminationGracePeriodSeconds: 610 });
    // One rule, one message: the pod settings do not repeat the server's own timeout problem.
    expect(await problems([...kubeFlags, '--max-timeout', '30s'])).toEqual([
      '--default-timeout (env CLI_MCP_DEFAULT_TIMEOUT): must not exceed --max-timeout (env CLI_MCP_MAX_TIMEOUT); got "60s"',
    ]);
  });

  it('does not validate Kubernetes flags for the local backend', async () => {
    const c = await config(['--sandbox-cpu-request', 'not-a-quantity']);
    expect(c.kubernetes.podConfig).toBeUndefined();
  });

  it('reads the instructions file, and refuses an empty one', async () => {
    expect((await config(['--instructions-file', '/etc/cli-mcp/instructions.md'])).tool.instructions).toBe('Use oc and kubectl.');
    expect(await problems(['--instructions-file', '/etc/cli-mcp/empty'])).toEqual([
      '--instructions-file (env CLI_MCP_INSTRUCTIONS_FILE): /etc/cli-mcp/empty is empty',
    ]);
  });

  it('places the state dir under XDG_STATE_HOME when it is absolute, else under ~/.local/state', async () => {
    expect((await config([], { XDG_STATE_HOME: '/var/state' })).local.stateDir).toBe('/var/state/cli-mcp-server');
    expect((await config([], { XDG_STATE_HOME: 'relative' })).local.stateDir).toBe('/users/ada/.local/state/cli-mcp-server');
    expect((await config(['--state-dir', 'here'])).local.stateDir).toBe('/srv/here');
    expect((await config(['--state-dir', '/x'])).hmacKey).toEqual({ path: '/x/hmac.key', generate: true });
  });

  it('gives each stdio server its own sandbox directory (one per client window), HTTP the state dir itself', async () => {
    expect((await config(['--state-dir', '/x', '--session-id', 'win-1'])).local.sandboxDir).toBe('/x/stdio/win-1');
    expect((await config(['--state-dir', '/x', '--transport', 'http'])).local.sandboxDir).toBe('/x');
  });

  it('checks an explicit HMAC key file now and warns about short keys', async () => {
    const good = await load(['--hmac-key-file', '/etc/cli-mcp/hmac.key']);
    expect(good).toMatchObject({ kind: 'run', warnings: [], config: { hmacKey: { path: '/etc/cli-mcp/hmac.key', generate: false } } });
    const short = await load(['--hmac-key-file', '/etc/cli-mcp/short.key']);
    expect(short.kind === 'run' && short.warnings[0]).toMatch(/^--hmac-key-file \(env CLI_MCP_HMAC_KEY_FILE\): HMAC key is 5 bytes/);
    const [empty] = await problems(['--hmac-key-file', '/etc/cli-mcp/empty']);
    expect(empty).toBe('--hmac-key-file (env CLI_MCP_HMAC_KEY_FILE): HMAC key file is empty or whitespace-only: /etc/cli-mcp/empty');
  });

  it('takes --local-network none, refuses it without bubblewrap, and refuses a warm pool beyond --max-sessions', async () => {
    expect((await config(['--local-network', 'none'])).local).toMatchObject({ network: 'none', isolation: 'auto' });
    expect(await problems(['--local-network', 'none', '--local-isolation', 'none'])).toEqual([
      '--local-network (env CLI_MCP_LOCAL_NETWORK): needs bubblewrap: use --local-isolation (env CLI_MCP_LOCAL_ISOLATION) auto or bwrap; got "none"',
    ]);
    expect(await problems(['--local-network', 'isolated', '--local-isolation', 'none'])).toEqual([
      '--local-network (env CLI_MCP_LOCAL_NETWORK): needs bubblewrap: use --local-isolation (env CLI_MCP_LOCAL_ISOLATION) auto or bwrap; got "isolated"',
    ]);
    expect(await problems(['--max-sessions', '2', '--warm-pool-size', '3'])).toEqual([
      '--max-sessions (env CLI_MCP_MAX_SESSIONS): must not be less than --warm-pool-size (env CLI_MCP_WARM_POOL_SIZE); got "2"',
    ]);
  });

  it('reads --local-reset-state (env too) and whether the stdio session id was given', async () => {
    expect((await config(['--local-reset-state'])).local).toMatchObject({ resetState: true });
    expect((await config([], { CLI_MCP_LOCAL_RESET_STATE: 'true' })).local).toMatchObject({ resetState: true });
    expect((await config(['--session-id', 'my-project'])).local).toMatchObject({ resetState: false, stdioSessionGenerated: false });
  });

  it('collects --local-ro-bind from repeated flags or the comma-separated env, resolved against the cwd', async () => {
    expect((await config(['--local-ro-bind', '/opt/tools', '--local-ro-bind', 'data'])).local.readOnlyBinds)
      .toEqual(['/opt/tools', '/srv/data']);
    expect((await config([], { CLI_MCP_LOCAL_RO_BIND: '/srv/models, /data' })).local.readOnlyBinds).toEqual(['/srv/models', '/data']);
  });

  it('takes the per-sandbox bounds as numbers and quantities or off, unset meaning the default, and names the flag when out of range', async () => {
    expect((await config(['--local-max-processes', '256', '--local-max-memory', '512Mi', '--local-max-disk', '1Gi', '--local-max-output', '64Mi'])).local)
      .toMatchObject({ maxProcesses: 256, maxMemoryBytes: 512 * 2 ** 20, maxDiskBytes: 2 ** 30, maxOutputBytes: 64 * 2 ** 20 });
    expect((await config([], { CLI_MCP_LOCAL_MAX_PROCESSES: 'off', CLI_MCP_LOCAL_MAX_MEMORY: 'off', CLI_MCP_LOCAL_MAX_DISK: 'off', CLI_MCP_LOCAL_MAX_OUTPUT: 'off' })).local)
      .toMatchObject({ maxProcesses: 'off', maxMemoryBytes: 'off', maxDiskBytes: 'off', maxOutputBytes: 'off' });
    expect((await config([])).local).toMatchObject({ maxProcesses: undefined, maxMemoryBytes: undefined, maxDiskBytes: undefined, maxOutputBytes: undefined });
    expect(await problems(['--local-max-processes', '4', '--local-max-memory', '1Mi', '--local-max-disk', 'lots', '--local-max-output', '0'])).toEqual([
      '--local-max-processes (env CLI_MCP_LOCAL_MAX_PROCESSES): must be off or a whole number between 32 and 1000000; got "4"',
      '--local-max-memory (env CLI_MCP_LOCAL_MAX_MEMORY): must be off or between 128Mi and 1Pi; got "1Mi"',
      expect.stringMatching(/^--local-max-disk \(env CLI_MCP_LOCAL_MAX_DISK\).*\(or off\)$/),
      '--local-max-output (env CLI_MCP_LOCAL_MAX_OUTPUT): must be off or between 1Mi and 1Pi; got "0"',
    ]);
  });

  it('keeps the Kubernetes flags for the backend that will validate them', async () => {
    const c = await config(['--namespace', 'tarsy', '--sandbox-image', 'quay.io/x/sandbox:1', '--ready-timeout', '2m']);
    expect(c.kubernetes).toMatchObject({ namespace: 'tarsy', sandboxImage: 'quay.io/x/sandbox:1' });
    expect(c.readyTimeoutMs).toBe(120_000);
  });

  it('answers --help (listing every flag, its default and env var) and --version before validating', async () => {
    const help = await load(['--help', '--bogus']);
    expect(help.kind).toBe('help');
    const text = help.kind === 'help' ? help.text : '';
    // Headings in their order, the shared tables' under the same headings as the controller's.
    expect(text.match(/^\S.*:$/gm)).toEqual([
      'Server:', 'Tool:', `${SANDBOX_GROUP}:`, 'HTTP security:', 'Local backend (--backend local):', 'Egress gateway (--backend local: --local-network proxy):', 'Kubernetes backend (--backend kubernetes):', `${KUBERNETES_GROUP}:`, 'Other:',
    ]);
    for (const spec of SERVER_FLAGS) {
      expect(text).toContain(`--${spec.name}`);
      if (!spec.noEnv) expect(text).toContain(envVarName(ENV_PREFIX, spec.name));
      if (spec.default !== undefined) expect(text).toContain(`default: ${spec.default}`);
    }
    expect(await load(['-v'])).toEqual({ kind: 'version', text: 'cli-mcp-server 0.1.0+abc12345\n' });
  });
});
