import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { startFakeCluster, type FakeCluster } from '@cli-mcp/testing';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { bash, connectHttpClient, structuredOf } from './support/mcp-client.js';
import { runCli, startHttpServer, UNPRIVILEGED_USER, type ServerProcess } from './support/server-process.js';
import { describeWhenReady, KUBECTL_PROBLEM } from '../../support/prerequisites.js';

const bwrap = spawnSync('bwrap', ['--unshare-net', '--unshare-pid', '--ro-bind', '/', '/', 'true']);
const problem = bwrap.error || bwrap.status !== 0 ? `bwrap does not work here: ${bwrap.error?.message ?? bwrap.stderr}`
  : KUBECTL_PROBLEM;

const INVESTIGATION = 'inv-token-e2e-0123456789';

/**
 * The laptop case of issue 20 through the built server and the SDK client: the user's own kubeconfig (here the fake
 * API server's, on 127.0.0.1 like kind or minikube) given as --egress-kubeconfig; the sandbox's kubectl works, and
 * neither $KUBECONFIG, the environment nor --token reveal or change the identity.
 */
describeWhenReady('the built server with --egress-kubeconfig (laptop)', problem, () => {
  let cluster: FakeCluster;
  let server: ServerProcess;
  let client: Client;
  let dir: string;
  const run = async (command: string): Promise<string> => structuredOf(await bash(client, command)).stdout;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'cli-mcp-e2e-egress-'));
    cluster = await startFakeCluster({ kubelet: false, users: { [INVESTIGATION]: 'investigator', STOLEN: 'attacker' }, token: INVESTIGATION });
    server = await startHttpServer({ args: ['--egress-kubeconfig', cluster.kubeconfigPath, '--egress-audit-log', join(dir, 'audit.jsonl')] });
    client = await connectHttpClient(server.mcpUrl, 'laptop');
  });
  afterAll(async () => {
    await client?.close();
    if (server) expect(await server.stop()).toBe(0);
    await cluster?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('kubectl works from the sandbox as the kubeconfig\'s user; --token changes nothing; $KUBECONFIG and env hold no token', async () => {
    expect(await run('kubectl get pods 2>&1')).toBe('No resources found in default namespace.');
    expect(await run('kubectl auth whoami -o jsonpath={.status.userInfo.username}')).toBe('investigator');
    expect(await run('kubectl --token STOLEN auth whoami -o jsonpath={.status.userInfo.username}')).toBe('investigator');
    const visible = await run('cat "$KUBECONFIG"; env');
    expect(visible).toContain('token: egress-gateway-managed');
    expect(visible).toContain('proxy-url: http://127.0.0.1:3128');
    expect(visible).not.toContain(INVESTIGATION);
    expect(cluster.requests.entries().filter((record) => record.user !== 'investigator')).toEqual([]);
  });

  it('/health and the start log say the network is proxy and list the routes, hosts only; audit lines and metrics name the session', async () => {
    const route = `${new URL(cluster.url).host} (kubernetes, credential injected)`;
    const health = (await (await fetch(`${server.baseUrl}/health`)).json()) as { info: { sessions: Record<string, unknown> } };
    expect(health.info.sessions).toMatchObject({ isolation: 'bwrap', network: 'proxy', egress: { routes: [route], audit_log: join(dir, 'audit.jsonl') } });
    expect(server.logs().find((entry) => String(entry.msg).startsWith('local egress gateway'))).toMatchObject({ routes: [route] });
    expect(server.stderr()).not.toContain(INVESTIGATION);
    const audit = readFileSync(join(dir, 'audit.jsonl'), 'utf8').trim().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(audit.some((line) => line.session === 'laptop' && line.route === 'kubernetes' && line.credentialInjected === true)).toBe(true);
    expect(await (await fetch(`${server.baseUrl}/metrics`)).text()).toMatch(/cli_mcp_egress_requests_total\{decision="allow",route="kubernetes"\} [1-9]/);
  });

  it('refuses to start, naming the flag, when the kubeconfig cannot be read', async () => {
    const refused = await runCli(['--transport', 'http', '--address', '127.0.0.1:0', '--state-dir', join(dir, 'state2'), '--egress-kubeconfig', join(dir, 'missing')]);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain(`--egress-kubeconfig (env CLI_MCP_EGRESS_KUBECONFIG): cannot read ${join(dir, 'missing')}`);
  });
});

// Not 65534, which root servers' sandboxes share (server-process.ts says why).
const serverUser = UNPRIVILEGED_USER;
const unprivileged = problem ?? (process.getuid?.() !== 0 ? 'not root: the main suite above already runs as an ordinary user'
  : spawnSync('setpriv', [`--reuid=${serverUser.uid}`, `--regid=${serverUser.gid}`, '--clear-groups', '--', 'bwrap', '--unshare-user', '--unshare-net', '--ro-bind', '/', '/', 'true']).status !== 0
    ? 'unprivileged bubblewrap does not work here' : undefined);

/** A laptop's server is an ordinary user: its sandboxes (its own uid in a user namespace) reach their socket too. */
describeWhenReady('the built server with --egress-allow, run by an unprivileged user', unprivileged, () => {
  let server: ServerProcess;
  let client: Client;
  beforeAll(async () => {
    server = await startHttpServer({ runAs: serverUser, args: ['--egress-allow', 'pypi.org:443'] });
    client = await connectHttpClient(server.mcpUrl, 'laptop-user');
  });
  afterAll(async () => {
    await client?.close();
    if (server) expect(await server.stop()).toBe(0);
  });

  it('reaches the gateway through the sandbox\'s socket: a host that is not a route is refused by it, naming the flag', async () => {
    const out = structuredOf(await bash(client, [
      'id -u',
      "exec 3<>/dev/tcp/127.0.0.1/3128; printf 'CONNECT other.example:443 HTTP/1.1\\r\\nHost: other.example:443\\r\\n\\r\\n' >&3; { cat <&3; echo; } | tail -1",
    ].join('\n'))).stdout;
    const [uid, body] = out.split('\n');
    expect(uid).toBe(String(serverUser.uid));
    expect(JSON.parse(body!)).toMatchObject({ error: 'not_allowed', flag: '--egress-allow other.example:443' });
  });
});

