import { RuntimeCa } from '@cli-mcp/egress';
import { describe, expect, it } from 'vitest';
import { loadEgressConfig } from './load-egress-config.js';

const BASE = ['--namespace', 'ns', '--instance-name', 'inst', '--routes-file', 'routes.json', '--ca-secret', 'inst-egress-ca', '--sandbox-configmap', 'inst-egress-sandbox', '--sandbox-proxy-url', 'http://inst-egress.ns.svc:3128'];

function load(files: Record<string, string>, argv: string[] = BASE, env: Record<string, string> = {}) {
  return loadEgressConfig({
    argv, env, version: '1.2.3', cwd: '/etc/egress',
    readFile: async (path) => {
      const text = files[path];
      if (text === undefined) throw new Error(`ENOENT: no such file, open '${path}'`);
      return text;
    },
  });
}

async function kubeconfig(server: string): Promise<string> {
  const { cert } = await RuntimeCa.generatePem('test cluster');
  const data = Buffer.from(cert).toString('base64');
  return `apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster:\n    server: ${server}\n    certificate-authority-data: ${data}\nusers:\n- name: u\n  user:\n    token: real-token\ncontexts:\n- name: x\n  context:\n    cluster: c\n    user: u\ncurrent-context: x\n`;
}

describe('loadEgressConfig (cli-mcp-egress flags, C-CFG-1)', () => {
  it('reads the routes file with --egress-allow\'s rules (canonical keys) and the defaults', async () => {
    const outcome = await load({ '/etc/egress/routes.json': '{"allow": ["PyPI.org.:443", "[2001:db8::1]:8443"]}' });
    expect(outcome.kind).toBe('run');
    if (outcome.kind !== 'run') return;
    expect(outcome.config).toMatchObject({
      namespace: 'ns', instanceName: 'inst', proxyPort: 3128, adminPort: 9090, caSecret: 'inst-egress-ca', sandboxConfigMap: 'inst-egress-sandbox',
      sandboxProxyUrl: 'http://inst-egress.ns.svc:3128', investigation: undefined,
      routes: [{ kind: 'allow', authority: 'pypi.org:443' }, { kind: 'allow', authority: '[2001:db8::1]:8443' }],
    });
  });

  it('names the file and every bad entry', async () => {
    const outcome = await load({ '/etc/egress/routes.json': '{"allow": ["ok.example:443", "x.example:99999", "*.github.com:443", 5, "u@h:443"], "alow": []}' });
    expect(outcome.kind).toBe('invalid');
    const problems = outcome.kind === 'invalid' ? outcome.problems : [];
    const file = '--routes-file (env CLI_MCP_ROUTES_FILE): /etc/egress/routes.json';
    expect(problems).toEqual([
      `${file}: unknown key "alow" (only "allow" is read)`,
      expect.stringMatching(new RegExp(`^${escape(file)}: allow\\[1\\] "x.example:99999": `)),
      `${file}: allow[2] "*.github.com:443": wildcards are not supported; list each HOST:PORT`,
      `${file}: allow[3] 5: not a string`,
      expect.stringMatching(new RegExp(`^${escape(file)}: allow\\[4\\] "u@h:443": `)),
    ]);
  });

  it('refuses a missing or malformed file, every required flag, and a proxy URL that is not plain http', async () => {
    const missing = await load({}, [...BASE.slice(0, -1), 'https://x:3128']);
    expect(missing.kind === 'invalid' && missing.problems).toEqual([
      expect.stringMatching(/^--sandbox-proxy-url \(env CLI_MCP_SANDBOX_PROXY_URL\): "https:\/\/x:3128" must be a plain http:\/\/host:port URL/),
      expect.stringMatching(/^--routes-file \(env CLI_MCP_ROUTES_FILE\): \/etc\/egress\/routes.json: cannot read it \(ENOENT/),
    ]);
    const malformed = await load({ '/etc/egress/routes.json': '{allow' });
    expect(malformed.kind === 'invalid' && malformed.problems[0]).toMatch(/routes.json: not JSON/);
    const none = await load({}, []);
    expect(none.kind === 'invalid' && none.problems.map((p) => p.split(' ')[0])).toEqual(['--namespace', '--instance-name', '--routes-file', '--ca-secret', '--sandbox-configmap', '--sandbox-proxy-url']);
  });

  it('--kubeconfig-file: its clusters become Kubernetes routes; one also in the allow-list is a conflict', async () => {
    const files = { '/etc/egress/routes.json': '{"allow": []}', '/etc/inv/kubeconfig': await kubeconfig('https://api.example:6443') };
    const outcome = await load(files, [...BASE, '--kubeconfig-file', '/etc/inv/kubeconfig']);
    expect(outcome.kind === 'run' && outcome.config.routes).toEqual([expect.objectContaining({ kind: 'kubernetes', authority: 'api.example:6443', credential: { token: 'real-token' } })]);
    const conflict = await load({ ...files, '/etc/egress/routes.json': '{"allow": ["api.example:6443"]}' }, [...BASE, '--kubeconfig-file', '/etc/inv/kubeconfig']);
    expect(conflict.kind === 'invalid' && conflict.problems[0]).toMatch(/--routes-file .*, --kubeconfig-file .*: route api.example:6443 is listed both as allow and kubernetes/);
  });

  it('takes every flag from the environment too', async () => {
    const outcome = await load({ '/etc/egress/r.json': '{}' }, [], {
      CLI_MCP_NAMESPACE: 'ns', CLI_MCP_INSTANCE_NAME: 'i', CLI_MCP_ROUTES_FILE: 'r.json', CLI_MCP_CA_SECRET: 'c', CLI_MCP_SANDBOX_CONFIGMAP: 'm',
      CLI_MCP_SANDBOX_PROXY_URL: 'http://i-egress.ns.svc:3128/', CLI_MCP_PROXY_PORT: '0', CLI_MCP_ADMIN_PORT: '0',
    });
    expect(outcome.kind === 'run' && [outcome.config.proxyPort, outcome.config.adminPort, outcome.config.routes, outcome.config.sandboxProxyUrl]).toEqual([0, 0, [], 'http://i-egress.ns.svc:3128']);
  });
});

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
