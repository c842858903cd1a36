import { kubeconfigRoutes } from '@cli-mcp/egress';
import { describe, expect, it } from 'vitest';
import { loadServerConfig, type ConfigOutcome } from './load-server-config.js';

const CA = '-----BEGIN CERTIFICATE-----\nQ0E=\n-----END CERTIFICATE-----\n';
const kubeconfig = (clusters: Array<{ name: string; server: string; user: Record<string, unknown> }>): string => JSON.stringify({
  clusters: clusters.map(({ name, server }) => ({ name, cluster: { server, 'certificate-authority-data': Buffer.from(CA).toString('base64') } })),
  users: clusters.map(({ name, user }) => ({ name, user })),
  contexts: clusters.map(({ name }) => ({ name, context: { cluster: name, user: name } })),
  'current-context': clusters[0]?.name ?? '',
});
const FILES: Record<string, string> = {
  '/users/ada/.kube/config': kubeconfig([{ name: 'prod', server: 'https://api.prod.example:6443', user: { token: 'REAL' } }]),
  '/users/ada/mixed': kubeconfig([
    { name: 'prod', server: 'https://api.prod.example:6443', user: { token: 'REAL' } },
    { name: 'eks', server: 'https://eks.example', user: { exec: { command: 'aws' } } },
  ]),
  '/users/ada/broken': 'clusters: [',
};

function load(argv: string[], env: Record<string, string> = {}): Promise<ConfigOutcome> {
  return loadServerConfig({
    argv: ['--state-dir', '/state', ...argv], env, homeDir: '/users/ada', cwd: '/users/ada', version: '0', randomSuffix: () => 'r',
    readFile: async (path) => FILES[path] ?? Promise.reject(new Error(`ENOENT: no such file or directory, open '${path}'`)),
  });
}

describe('egress flags (loadServerConfig)', () => {
  it('turns --local-network auto into proxy, canonicalises --egress-allow and reads the kubeconfig into routes', async () => {
    const outcome = await load(['--egress-allow', 'PyPI.org.:443', '--egress-allow', 'github.com:443', '--egress-kubeconfig', '.kube/config', '--egress-audit-log', '/var/log/egress.jsonl']);
    expect(outcome.kind).toBe('run');
    if (outcome.kind !== 'run') return;
    const { local } = outcome.config;
    expect(local.network).toBe('proxy');
    expect(local.egress).toMatchObject({ allow: ['pypi.org:443', 'github.com:443'], auditLog: '/var/log/egress.jsonl', kubeconfig: { path: '/users/ada/.kube/config' } });
    const { config, path } = local.egress!.kubeconfig!;
    expect(kubeconfigRoutes(config, path)).toEqual([{ kind: 'kubernetes', authority: 'api.prod.example:6443', ca: CA, credential: { token: 'REAL' } }]);
    expect(outcome.warnings).toEqual([]);
  });

  it('takes the allow list from the environment too, and proxy without any route', async () => {
    const fromEnv = await load([], { CLI_MCP_EGRESS_ALLOW: 'a.example:443,b.example:8443' });
    expect(fromEnv.kind === 'run' && fromEnv.config.local).toMatchObject({ network: 'proxy', egress: { allow: ['a.example:443', 'b.example:8443'] } });
    const bare = await load(['--local-network', 'proxy']);
    expect(bare.kind === 'run' && bare.config.local).toMatchObject({ network: 'proxy', egress: { allow: [] } });
    const none = await load([]);
    expect(none.kind === 'run' && none.config.local).toMatchObject({ network: 'auto', egress: undefined });
  });

  it('refuses bad values, each problem naming its flag', async () => {
    const outcome = await load([
      '--egress-allow', 'pypi.org', '--egress-allow', '*.github.com:443', '--egress-allow', 'a@b.example:443',
      '--egress-kubeconfig', '/users/ada/missing', '--egress-audit-log', '/state/sessions/x/workspace/audit',
    ]);
    expect(outcome.kind === 'invalid' && outcome.problems).toEqual([
      expect.stringMatching(/^--egress-allow \(env CLI_MCP_EGRESS_ALLOW\): "pypi.org": malformed authority .*port/),
      '--egress-allow (env CLI_MCP_EGRESS_ALLOW): "*.github.com:443": wildcards are not supported; list each HOST:PORT',
      expect.stringMatching(/^--egress-allow \(env CLI_MCP_EGRESS_ALLOW\): "a@b.example:443": malformed authority .*userinfo/),
      "--egress-kubeconfig (env CLI_MCP_EGRESS_KUBECONFIG): cannot read /users/ada/missing: ENOENT: no such file or directory, open '/users/ada/missing'",
      '--egress-audit-log (env CLI_MCP_EGRESS_AUDIT_LOG): /state/sessions/x/workspace/audit is inside --state-dir /state, where sandboxes\' workspaces live; choose a path outside it',
    ]);
    // A context the gateway cannot route is refused rather than dropped: kubectl --context would find it missing.
    for (const [file, why] of [['broken', /broken: not YAML/], ['mixed', /mixed: users\[eks\] authenticates with exec; .* \(a laptop kubeconfig with many contexts: give one made by kubectl config view --minify --flatten --context NAME\)$/]] as const) {
      const bad = await load(['--egress-kubeconfig', `/users/ada/${file}`]);
      expect(bad.kind === 'invalid' && bad.problems).toEqual([expect.stringMatching(new RegExp(`^--egress-kubeconfig \\(env CLI_MCP_EGRESS_KUBECONFIG\\): /users/ada/${why.source}`))]);
    }
  });

  it('refuses egress flags with another network, with --local-isolation none, a route listed twice, and on Kubernetes', async () => {
    expect(await load(['--egress-allow', 'a.example:443', '--local-network', 'isolated'])).toEqual({
      kind: 'invalid', problems: ['--egress-allow (env CLI_MCP_EGRESS_ALLOW) needs --local-network proxy (auto becomes proxy when an --egress-* flag is given); got --local-network isolated'],
    });
    expect(await load(['--local-network', 'proxy', '--local-isolation', 'none'])).toMatchObject({
      kind: 'invalid', problems: [expect.stringMatching(/^--local-network \(env CLI_MCP_LOCAL_NETWORK\): needs bubblewrap/)],
    });
    expect(await load(['--egress-allow', 'api.prod.example:6443', '--egress-kubeconfig', '/users/ada/.kube/config'])).toMatchObject({
      kind: 'invalid', problems: [expect.stringMatching(/route api.prod.example:6443 is listed both as allow and kubernetes/)],
    });
    const kube = await load(['--backend', 'kubernetes', '--egress-audit-log', '/tmp/a']);
    expect(kube.kind === 'invalid' && kube.problems).toContain(
      "--egress-audit-log (env CLI_MCP_EGRESS_AUDIT_LOG) configures the local backend's egress gateway; with --backend kubernetes the gateway is the cli-mcp-egress Deployment (docs/egress.md)",
    );
  });
});
