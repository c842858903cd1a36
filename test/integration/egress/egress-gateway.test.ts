/**
 * The BUILT `cli-mcp-egress` (issue 20 item 3) against the fake API server: attribution by source pod IP
 * (C-EGR-6), the shared CA Secret and the sandbox ConfigMap (C-EGR-4, C-EGR-5), /readyz, start-up errors. The
 * fake API server is also the investigation cluster (a Kubernetes route on loopback, its token injected). Pod IPs
 * are random 127.x.y.z addresses (Linux routes all of 127/8 to lo); a test connects from one to appear as that pod.
 */
import { randomInt } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Socket } from 'node:net';
import { checkServerIdentity, connect as tlsConnect, type TLSSocket } from 'node:tls';
import { PLACEHOLDER_TOKEN } from '@cli-mcp/egress';
import { sandboxLabels } from '@cli-mcp/podspec';
import { PODS, SECRETS, deferred, eventually, startFakeCluster, type FakeCluster } from '@cli-mcp/testing';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { parse } from 'yaml';
import { exchange, openTunnel } from '../../../libs/egress/test/client.js';
import { egressSkipReason, runEgressCli, startEgressProcess, type EgressProcess } from './support/egress-process.js';
import { describeWhenReady } from '../../support/prerequisites.js';

const NS = 'default';
const INSTANCE = 'egw';
const GATEWAY = { token: 'gateway-token-0123', user: 'egress-gateway' };
const INVESTIGATION = { token: 'inv-token-4567', user: 'investigator' };
const STOLEN = { token: 'STOLEN-token-89ab', user: 'attacker' };
const CA_SECRET = 'egw-egress-ca';
const CONFIGMAP = 'egw-egress-sandbox';
const PROXY_URL = 'http://egw-egress.default.svc:3128';

let cluster: FakeCluster;
let dir: string;
let args: string[];
let first: EgressProcess | undefined;
let apiAuthority: string;

/** A random loopback address: one pod's IP, distinct per test (and per run on a shared machine). */
function loopbackIp(): string {
  return `127.${randomInt(1, 255)}.${randomInt(0, 256)}.${randomInt(1, 255)}`;
}

/** A sandbox pod of the instance at `ip`, Running; a warm one without `sessionId`. */
function createPod(name: string, ip: string, sessionId?: string): void {
  const pod = cluster.api.create(PODS, NS, { apiVersion: 'v1', kind: 'Pod', metadata: { name, labels: sandboxLabels(INSTANCE, sessionId) }, spec: { containers: [{ name: 'agent', image: 'sandbox' }] } });
  cluster.api.mutatePod(NS, name, pod.metadata.uid as string, (p) => {
    p.status = { phase: 'Running', podIP: ip, podIPs: [{ ip }] };
  });
}

async function readyz(process: EgressProcess): Promise<{ status: number; body: { reasons?: string[] } }> {
  const response = await fetch(`${process.adminUrl}/readyz`);
  return { status: response.status, body: (await response.json()) as { reasons?: string[] } };
}

function sandboxData(): Record<string, string> {
  return (cluster.store.get('configmaps', NS, CONFIGMAP) as unknown as { data: Record<string, string> }).data;
}

/** A GET through a TLS tunnel from `ip`, sending a stolen token that the gateway must replace. */
async function getPodsThrough(process: EgressProcess, ip: string): Promise<{ status: number; body: string }> {
  const { response, socket } = await openTunnel(process.proxyPort, apiAuthority, ip);
  if (response.status !== 200) return { status: response.status, body: response.body };
  const tls = await tlsInTunnel(socket);
  const answer = await exchange(tls, `GET /api/v1/namespaces/${NS}/pods HTTP/1.1\r\nHost: ${apiAuthority}\r\nAuthorization: Bearer ${STOLEN.token}\r\nConnection: close\r\n\r\n`);
  return { status: answer.status, body: answer.body };
}

/**
 * TLS inside a tunnel, trusting the published ca.crt only. The API server is an IP literal (no SNI is sent), so
 * its identity is checked against that IP rather than Node's default `localhost`.
 */
function tlsInTunnel(socket: Socket): Promise<TLSSocket> {
  const host = new URL(cluster.url).hostname;
  return new Promise((resolve, reject) => {
    const tls = tlsConnect({ socket, ca: sandboxData()['ca.crt'], ALPNProtocols: ['http/1.1'], checkServerIdentity: (_name, cert) => checkServerIdentity(host, cert) });
    tls.once('secureConnect', () => resolve(tls));
    tls.once('error', reject);
  });
}

describeWhenReady('cli-mcp-egress (built) against the fake API server', egressSkipReason, () => {
  beforeAll(async () => {
    cluster = await startFakeCluster({ kubelet: false, users: { [GATEWAY.token]: GATEWAY.user, [INVESTIGATION.token]: INVESTIGATION.user, [STOLEN.token]: STOLEN.user }, token: GATEWAY.token });
    dir = mkdtempSync(join(tmpdir(), 'egress-gateway-it-'));
    const investigation = await cluster.server.writeKubeconfig(join(dir, 'investigation.kubeconfig'), NS, { token: INVESTIGATION.token });
    writeFileSync(join(dir, 'routes.json'), JSON.stringify({ allow: ['pypi.org:443'] }));
    apiAuthority = new URL(cluster.url).host;
    args = [
      '--namespace', NS, '--instance-name', INSTANCE, '--kubeconfig', cluster.kubeconfigPath, '--kubeconfig-file', investigation,
      '--routes-file', join(dir, 'routes.json'), '--ca-secret', CA_SECRET, '--sandbox-configmap', CONFIGMAP, '--sandbox-proxy-url', PROXY_URL,
    ];
  }, 60_000);

  afterAll(async () => {
    await first?.stop('SIGKILL');
    await cluster?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  }, 60_000);

  it('/readyz is 503 until the pod informer has synced, then 200; the first replica creates the CA Secret', async () => {
    const release = deferred<void>();
    const hold = cluster.faults.add({ method: 'GET', pathPattern: new RegExp(`^/api/v1/namespaces/${NS}/pods$`), watch: false, hold: () => release.promise });
    try {
      first = await startEgressProcess(args);
      await first.untilLog('published the sandbox ConfigMap');
      expect(await readyz(first)).toEqual({ status: 503, body: { status: 'not ready', reasons: ['pod informer not synced'] } });
      expect((await fetch(`${first.adminUrl}/healthz`)).status).toBe(200);
    } finally {
      hold.remove();
      release.resolve();
    }
    await eventually(async () => (await readyz(first!)).status === 200, '/readyz 200 after the informer synced', 30_000);
    expect(first.logs().find((l) => l.msg === 'created the shared CA Secret')).toMatchObject({ secret: CA_SECRET, created: true });
    const metrics = await (await fetch(`${first.adminUrl}/metrics`)).text();
    expect(metrics).toContain('# TYPE cli_mcp_egress_requests_total counter');
    expect(metrics).toMatch(/cli_mcp_kube_requests_total\{verb="create",resource="secrets",code="201"\} 1/);
  }, 120_000);

  it('publishes ca.crt (the certificate, no key) and a dummy kubeconfig without any real token', () => {
    const secret = cluster.store.get('secrets', NS, CA_SECRET) as unknown as { type: string; data: Record<string, string> };
    expect(secret.type).toBe('kubernetes.io/tls');
    const caCert = Buffer.from(secret.data['tls.crt']!, 'base64').toString();
    const data = sandboxData();
    expect(Object.keys(data).sort()).toEqual(['ca.crt', 'kubeconfig']);
    expect(data['ca.crt']!.trim()).toBe(caCert.trim());
    expect(data['ca.crt']).not.toMatch(/PRIVATE KEY/);
    const text = data.kubeconfig!;
    for (const secretText of [INVESTIGATION.token, GATEWAY.token, 'PRIVATE KEY']) expect(text).not.toContain(secretText);
    const kubeconfig = parse(text) as { clusters: Array<{ cluster: Record<string, string> }>; users: Array<{ user: Record<string, string> }> };
    expect(kubeconfig.clusters).toEqual([{ name: expect.any(String), cluster: { server: cluster.url, 'certificate-authority-data': Buffer.from(data['ca.crt']!).toString('base64'), 'proxy-url': PROXY_URL } }]);
    expect(kubeconfig.users.map((u) => u.user)).toEqual([{ token: PLACEHOLDER_TOKEN }]);
  });

  it('refuses a connection from an unknown address and from a warm pod (no session label): 403, no session', async () => {
    const warmIp = loopbackIp();
    createPod('warm-1', warmIp);
    const sessionIp = loopbackIp();
    createPod('probe-1', sessionIp, 'probe-session');
    // Once the session pod is served, the informer has also seen the warm pod (created first).
    await eventually(async () => (await getPodsThrough(first!, sessionIp)).status === 200, 'the informer sees the pods', 30_000);
    for (const ip of [loopbackIp(), warmIp]) {
      const { response } = await openTunnel(first!.proxyPort, apiAuthority, ip);
      expect(response.status, ip).toBe(403);
      expect(response.body).toContain('this connection belongs to no session');
    }
    expect(first!.audit().filter((r) => r.reason === 'not_allowed' && r.session === '').length).toBeGreaterThanOrEqual(2);
    // A session's CONNECT to a host outside the routes: the 403 names this gateway's ways to allow it, the routes
    // file and the CR field, not the local server's --egress-allow (C-EGR-2).
    const refused = await openTunnel(first!.proxyPort, 'elsewhere.example:443', sessionIp);
    expect(refused.response.status).toBe(403);
    const body = JSON.parse(refused.response.body) as Record<string, string>;
    expect(body).toMatchObject({ error: 'not_allowed', host: 'elsewhere.example:443', field: 'spec.proxy.targets[].domains' });
    expect(body['routes_file']).toMatch(/^add "elsewhere\.example:443" to "allow" in \S+routes\S*\.json$/);
    expect(body).not.toHaveProperty('flag');
  }, 60_000);

  it('serves a session pod: the credential is injected (a stolen token is replaced), one audit line names the session', async () => {
    const ip = loopbackIp();
    createPod('sess-a', ip, 'session-a');
    let result: { status: number; body: string } = { status: 0, body: '' };
    await eventually(async () => (result = await getPodsThrough(first!, ip)).status !== 403, 'the informer sees session-a', 30_000);
    expect(result.status).toBe(200);
    expect(JSON.parse(result.body)).toMatchObject({ kind: 'PodList' });
    await eventually(() => first!.audit().some((r) => r.session === 'session-a' && r.method === 'GET'), 'the audit line');
    expect(first!.audit().find((r) => r.session === 'session-a' && r.method === 'GET')).toMatchObject({
      instance: INSTANCE, host: apiAuthority, path: `/api/v1/namespaces/${NS}/pods`, status: 200, decision: 'allow', route: 'kubernetes', credentialInjected: true,
    });
  }, 60_000);

  it('deleting the pod closes its open tunnel within 1 s and refuses new connections; a new pod of the session is served', async () => {
    const ip = loopbackIp();
    createPod('sess-b', ip, 'session-b');
    let opened: { response: { status: number }; socket: Socket } | undefined;
    await eventually(async () => {
      opened?.socket.destroy();
      opened = await openTunnel(first!.proxyPort, apiAuthority, ip);
      return opened.response.status === 200;
    }, 'a tunnel for session-b', 30_000);
    const tls = await tlsInTunnel(opened!.socket);
    const closed = new Promise<number>((resolve) => tls.once('close', () => resolve(performance.now())));
    tls.on('error', () => undefined);
    const deletedAt = performance.now();
    cluster.api.delete(PODS, NS, 'sess-b');
    expect((await closed) - deletedAt).toBeLessThan(1000);
    expect((await openTunnel(first!.proxyPort, apiAuthority, ip)).response.status).toBe(403);

    // The session's next pod (another IP) is admitted again; the old IP stays refused.
    const next = loopbackIp();
    createPod('sess-b2', next, 'session-b');
    await eventually(async () => (await getPodsThrough(first!, next)).status === 200, 'session-b on its new pod', 30_000);
    expect((await openTunnel(first!.proxyPort, apiAuthority, ip)).response.status).toBe(403);
  }, 60_000);

  it('a second replica uses the same CA (no second Secret create), serves with it, and exits 0 on SIGTERM', async () => {
    const creates = cluster.requests.count({ verb: 'create', resource: 'secrets' });
    const second = await startEgressProcess(args);
    try {
      expect(second.logs().find((l) => l.msg === 'loaded the shared CA Secret')).toMatchObject({ created: false });
      expect((await second.untilLog('published the sandbox ConfigMap')).outcome).toBe('unchanged');
      expect(cluster.requests.count({ verb: 'create', resource: 'secrets' })).toBe(creates);
      const ip = loopbackIp();
      createPod('sess-c', ip, 'session-c');
      // The tunnel's TLS is verified against the ConfigMap's ca.crt, which the first replica published.
      await eventually(async () => (await getPodsThrough(second, ip)).status === 200, 'session-c through the second replica', 30_000);
    } finally {
      expect(await second.stop('SIGTERM')).toBe(0);
    }
    expect(second.logs().map((l) => l.msg)).toContain('shutdown complete');
  }, 120_000);

  it('sent only what its Role grants, in its namespace; the stolen token never reached the API server', () => {
    const records = cluster.requests.entries();
    const own = records.filter((r) => r.user === GATEWAY.user);
    const granted = ['list pods', 'watch pods', 'get secrets', 'create secrets', 'get configmaps', 'create configmaps', 'update configmaps'];
    expect(own.length).toBeGreaterThan(0);
    for (const record of own) {
      expect(record.path, record.path).toMatch(new RegExp(`^/api/v1/namespaces/${NS}/(pods|secrets|configmaps)(/[^/]+)?$`));
      expect(granted, `${record.method} ${record.path}`).toContain(`${String(record.verb)} ${String(record.resource)}`);
    }
    // Tunnelled requests arrive as the investigation user (injected); the token the "sandbox" sent is never seen.
    expect(records.some((r) => r.user === INVESTIGATION.user)).toBe(true);
    expect(records.filter((r) => r.bearerToken === STOLEN.token)).toEqual([]);
  });

  it('a bad --routes-file stops it at start: the file and the entry named, exit 1, no stack trace', async () => {
    const bad = join(dir, 'bad-routes.json');
    writeFileSync(bad, JSON.stringify({ allow: ['ok.example:443', 'evil.example:443@x'] }));
    const run = await runEgressCli([...args.filter((_, i) => args[i - 1] !== '--routes-file' && args[i] !== '--routes-file'), '--routes-file', bad]);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`${bad}: allow[1] "evil.example:443@x"`);
    expect(run.stderr).not.toMatch(/\n\s+at /);
    const badUrl = await runEgressCli([...args, '--sandbox-proxy-url', 'ftp://x']);
    expect(badUrl.code).toBe(1);
    expect(badUrl.stderr).toContain('--sandbox-proxy-url (env CLI_MCP_SANDBOX_PROXY_URL): "ftp://x" must be a plain http://host:port URL');
  }, 60_000);

  it('an unusable CA Secret is a start-up error naming the Secret', async () => {
    cluster.api.create(SECRETS, NS, { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'broken-ca' }, type: 'kubernetes.io/tls', data: { 'tls.crt': Buffer.from('not a certificate').toString('base64'), 'tls.key': Buffer.from('no key').toString('base64') } });
    const run = await runEgressCli([...args.map((a) => (a === CA_SECRET ? 'broken-ca' : a === CONFIGMAP ? 'broken-ca-sandbox' : a)), '--proxy-port', '0', '--admin-port', '0']);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`the CA Secret ${NS}/broken-ca (--ca-secret) is not a usable CA`);
    expect(run.stderr).not.toMatch(/\n\s+at /);
    expect(cluster.store.get('configmaps', NS, 'broken-ca-sandbox')).toBeUndefined();
  }, 60_000);
});
