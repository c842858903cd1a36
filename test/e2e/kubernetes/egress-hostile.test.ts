// Issue 20 item 5 on Kubernetes (C-EGR-1, C-EGR-2, C-EGR-5, C-EGR-6): hostile commands from INSIDE a real sandbox
// pod. MCP SDK client → built server (`--backend kubernetes --egress-gateway`) → fake API server → fake kubelet →
// real sandbox agent and bash; the BUILT `cli-mcp-egress` runs against the same fake cluster, alone holding the
// investigation kubeconfig (a real bearer token), with that cluster as its Kubernetes route.
//
// How a pod's traffic reaches the gateway: the kubelet's PodNetwork (libs/testing fake-kube/kubelet/pod-network.ts)
// stands in for cluster DNS + kube-proxy. `http://oc-egress.cli-mcp.svc:3128` in the pod's env and in its mounted
// dummy kubeconfig becomes `<pod IP>:3128`, relayed to the Service's EndpointSlice (the gateway) FROM the pod IP,
// so the gateway attributes the connection by source address exactly as in a cluster.
//
// What the fake cannot enforce, and is therefore asserted differently (docs/egress.md, "Hostile tests on the fake
// cluster"): the fake has no NetworkPolicy enforcement, no network namespace, no filesystem or PID isolation. A
// direct connection from the sandbox to the API server therefore CONNECTS here; the test proves it carries no
// identity (401), and that the sandbox NetworkPolicy the gate requires allows nothing but the gateway (and DNS).
// A pod process could also bind another 127/8 address and pose as another pod; in a cluster the CNI stops source
// spoofing. Only the pod's own files, environment and processes are searched for the token: the host's are visible.
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { PLACEHOLDER_TOKEN } from '@cli-mcp/egress';
import { buildSandboxEgressPolicy } from '@cli-mcp/podspec';
import { ENDPOINT_SLICES, NETWORK_POLICIES, SECRETS, startFakeCluster, type FakeCluster, type KubeObject } from '@cli-mcp/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTunnel } from '../../../libs/egress/test/client.js';
import { pythonClientUnavailable, SYSTEM_PYTHON } from '../../integration/fake-kube/python-client.js';
import { egressSkipReason, startEgressProcess, type EgressProcess } from '../../integration/egress/support/egress-process.js';
import { bash, connectHttpClient, eventually, structuredOf, textOf } from '../mcp/support/mcp-client.js';
import { removeDir, startHttpServer, tempDir, type ServerProcess } from '../mcp/support/server-process.js';

const NS = 'cli-mcp';
const SERVER = { token: 'server-token-0123', user: 'cli-mcp-server' };
const INVESTIGATION = { token: 'investigation-token-4567', user: 'investigator' };
const STOLEN = { token: 'STOLEN-token-89ab', user: 'attacker' };
const SESSION = 'inv-egress-hostile';
const SESSION_LABEL = 'cli-mcp.redhat.com/session-id';
const WHOAMI = '/apis/authentication.k8s.io/v1/selfsubjectreviews';
const USERNAME = `python3 -c "import json,sys; print(json.load(sys.stdin)['status']['userInfo']['username'])"`;

// python3-kubernetes lives in the system Python (.ci/run installs it): under CI=true its test runs, never skips.
const pythonUnavailable = pythonClientUnavailable();
const inCi = process.env['CI'] === 'true';

let cluster: FakeCluster;
let gateway: EgressProcess;
let server: ServerProcess;
let dir: string;
let client: Client;
let apiAuthority: string;

beforeAll(async () => {
  if (egressSkipReason) return;
  cluster = await startFakeCluster({
    namespace: NS, users: { [SERVER.token]: SERVER.user, [INVESTIGATION.token]: INVESTIGATION.user, [STOLEN.token]: STOLEN.user }, token: SERVER.token,
    kubelet: { speedup: 20, maxTerminationGraceMs: 2_000, stopGraceMs: 1_000 },
  });
  apiAuthority = new URL(cluster.url).host;
  dir = tempDir('kube-egress-hostile');
  const investigation = await cluster.server.writeKubeconfig(join(dir, 'investigation.kubeconfig'), NS, { token: INVESTIGATION.token });
  // An allowed name that resolves to loopback: the gateway must refuse the address it resolved (C-EGR-3).
  writeFileSync(join(dir, 'routes.json'), JSON.stringify({ allow: ['localhost:1'] }));
  // The real investigation kubeconfig, as the Secret the gateway mounts in a deployment: without --egress-gateway
  // every sandbox would mount it (and the token scan below would find it).
  cluster.api.create(SECRETS, NS, { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'cli-mcp-oc-kubeconfig' }, stringData: { kubeconfig: readFileSync(investigation, 'utf8') } });
  gateway = await startEgressProcess([
    '--namespace', NS, '--instance-name', 'oc', '--kubeconfig', cluster.kubeconfigPath, '--kubeconfig-file', investigation,
    '--routes-file', join(dir, 'routes.json'), '--ca-secret', 'oc-egress-ca', '--sandbox-configmap', 'oc-egress-sandbox',
    '--sandbox-proxy-url', `http://oc-egress.${NS}.svc:3128`,
  ]);
  await gateway.untilLog('published the sandbox ConfigMap', 60_000);
  // The gateway Service's endpoints (what the kubelet's PodNetwork relays to, and what the gate checks) and the
  // sandbox NetworkPolicy: the gate opens only with both (C-EGR-6).
  cluster.api.create(ENDPOINT_SLICES, NS, {
    apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice', metadata: { name: 'oc-egress-local', labels: { 'kubernetes.io/service-name': 'oc-egress' } },
    addressType: 'IPv4', endpoints: [{ addresses: ['127.0.0.1'], conditions: { ready: true } }], ports: [{ name: 'proxy', port: gateway.proxyPort, protocol: 'TCP' }],
  });
  cluster.api.create(NETWORK_POLICIES, NS, buildSandboxEgressPolicy({ namespace: NS, instanceName: 'oc' }) as unknown as KubeObject);
  const keyFile = join(dir, 'hmac.key');
  writeFileSync(keyFile, `${'cd'.repeat(32)}\n`, { mode: 0o600 });
  server = await startHttpServer({
    args: [
      '--backend', 'kubernetes', '--kubeconfig', cluster.kubeconfigPath, '--namespace', NS, '--instance-name', 'oc',
      '--sandbox-image', 'quay.io/example/cli-mcp-sandbox:test', '--kubeconfig-secret', 'cli-mcp-oc-kubeconfig',
      '--sandbox-service-account', 'cli-mcp-oc-sandbox', '--hmac-key-file', keyFile, '--sandbox-termination-grace-period', '1',
      '--egress-gateway', '--eager-acquire=false',
    ],
  });
  client = await connectHttpClient(server.mcpUrl, SESSION);
}, 180_000);

afterAll(async () => {
  await client?.close().catch(() => undefined);
  await server?.stop();
  await gateway?.stop('SIGKILL');
  await cluster?.stop();
  if (dir) removeDir(dir);
}, 60_000);

/** Runs `command` in the session's sandbox; the result must not be an MCP tool error. */
async function sh(command: string): Promise<{ stdout: string; stderr: string; exit_code: number }> {
  const result = await bash(client, command, 60);
  if (result.isError) throw new Error(`bash failed: ${textOf(result)}`);
  return structuredOf(result);
}

/** A raw request to the gateway from inside the sandbox (bash's /dev/tcp), through the pod's proxy address. */
function rawThroughProxy(request: string): string {
  const text = request.replace(/\r?\n/g, '\\r\\n');
  return `p=\${HTTPS_PROXY#http://}; p=\${p%/}; exec 3<>"/dev/tcp/\${p%:*}/\${p##*:}"; printf '${text}\\r\\n' >&3; timeout 10 cat <&3`;
}

const podOf = (): KubeObject | undefined => cluster.store.list('pods', NS).find((p) => p.metadata.labels?.[SESSION_LABEL] === SESSION && !p.metadata.deletionTimestamp);
const podIp = (): string => String((podOf()?.['status'] as { podIP?: string } | undefined)?.podIP ?? '');

describe.skipIf(egressSkipReason)('hostile commands inside a Kubernetes sandbox behind cli-mcp-egress (issue 20 item 5)', () => {
  it('real kubectl with the dummy kubeconfig works through the gateway as the investigation user; the API never sees the dummy or a stolen token', async () => {
    let run = { stdout: '', stderr: '', exit_code: -1 };
    await eventually(async () => {
      run = await sh('kubectl get pods -o name');
      return run.exit_code === 0;
    }, 'kubectl get pods through the gateway', 90_000).catch(() => expect(run).toMatchObject({ exit_code: 0 }));
    expect(run.stdout).toContain(`pod/${String(podOf()?.metadata.name)}`);
    // --token, --as, --as-group and --insecure-skip-tls-verify change nothing: still the investigation user.
    const hostile = await sh(`kubectl --token ${STOLEN.token} --as system:admin --as-group system:masters get pods -o name && kubectl --insecure-skip-tls-verify get pods -o name`);
    expect(hostile).toMatchObject({ exit_code: 0 });
    const fromKubectl = cluster.requests.entries({ resource: 'pods', verb: 'list' }).filter((r) => r.userAgent?.startsWith('kubectl'));
    expect(fromKubectl.length).toBeGreaterThanOrEqual(3);
    for (const record of fromKubectl) expect(record).toMatchObject({ bearerToken: INVESTIGATION.token, user: INVESTIGATION.user, status: 200 });
    expect(fromKubectl.every((r) => r.impersonatedBy === undefined)).toBe(true);
    const all = cluster.requests.entries();
    expect(all.filter((r) => r.bearerToken === PLACEHOLDER_TOKEN || r.bearerToken === STOLEN.token)).toEqual([]);
    // Attributed to this session (C-EGR-7).
    expect(gateway.audit().some((a) => a['session'] === SESSION && a['decision'] === 'allow' && a['credentialInjected'] === true)).toBe(true);
  }, 180_000);

  it('the sandbox environment, its kubeconfig, its mounted files and its processes hold no real token', async () => {
    // Collected inside the sandbox into one file outside the scanned directories (too long for a tool result),
    // read here: the fake's pod directories are on this host.
    const run = await sh([
      'out="$TMPDIR/scan.txt"', '{ env; cat /proc/self/environ; cat /proc/$PPID/environ; cat "$KUBECONFIG"; ps eww -o args= -p $$,$PPID',
      // Every file of the pod's volumes and workspace (the fake mounts them under one directory per pod).
      'find "$(dirname "$(dirname "$KUBECONFIG")")" "$HOME" -type f -size -2M -exec cat {} +; } > "$out" 2>&1', 'echo "$out"',
    ].join('; '));
    const seen = readFileSync(run.stdout.trim(), 'utf8');
    expect(seen).toContain(PLACEHOLDER_TOKEN);
    expect(seen).toContain('HTTPS_PROXY=http://127.');
    for (const token of [INVESTIGATION.token, SERVER.token]) expect(seen).not.toContain(token);
  }, 120_000);

  it('a host not in the routes, an IP literal and a variant of the API address get 403 naming the host and the flag', async () => {
    const api = new URL(cluster.url);
    for (const authority of ['example.com:443', '10.0.0.1:443', `[::ffff:${api.hostname}]:${api.port}`, `localhost:${api.port}`]) {
      const run = await sh(rawThroughProxy(`CONNECT ${authority} HTTP/1.1\nHost: ${authority}\n`));
      expect(run.stdout).toMatch(/^HTTP\/1\.1 403 /);
      expect(run.stdout).toContain('"error":"not_allowed"');
      expect(run.stdout).toContain('--egress-allow');
    }
    const curl = await sh('curl -sS --max-time 20 https://example.com/ 2>&1; echo " exit=$?"');
    expect(curl.stdout).toMatch(/403/);
    expect(curl.stdout).not.toContain('exit=0');
    // Plain HTTP to the Kubernetes route is refused too (C-EGR-4).
    const plain = await sh(`curl -sS --max-time 20 --noproxy '' --proxy "$HTTP_PROXY" http://${apiAuthority}/api/v1/namespaces/${NS}/pods; echo " exit=$?"`);
    expect(plain.stdout).toContain('"error":"plain_http_refused"');
    expect(cluster.requests.entries().filter((r) => r.bearerToken === PLACEHOLDER_TOKEN)).toEqual([]);
  }, 120_000);

  it('exec, attach, port-forward and cp are refused by the gateway from inside the sandbox', async () => {
    const pod = String(podOf()?.metadata.name);
    const run = await sh(`for c in "exec ${pod} -- true" "attach ${pod}" "port-forward ${pod} 9999:8090" "cp ${pod}:/etc/hostname /tmp/x"; do timeout 30 kubectl $c </dev/null >/dev/null 2>&1; echo "$c exit=$?"; done`);
    for (const line of run.stdout.trim().split('\n')) expect(line).not.toMatch(/exit=0$/);
    const denied = gateway.audit().filter((a) => a['session'] === SESSION && a['decision'] === 'deny' && /exec|attach|portforward/.test(String(a['path'])));
    expect(denied.length).toBeGreaterThanOrEqual(3);
    expect(cluster.requests.entries({ path: /\/(exec|attach|portforward)$/ })).toEqual([]);
  }, 180_000);

  it('curl and python3 requests with a stolen token, through the proxy, reach the API as the investigation user', async () => {
    // The fake API server is on 127.0.0.1, which NO_PROXY names (a cluster's API address is not): cleared here.
    const viaProxy = 'NO_PROXY= no_proxy=';
    const url = `https://${apiAuthority}${WHOAMI}`;
    const run = await sh([
      `${viaProxy} curl -sS --max-time 20 --cacert "$NODE_EXTRA_CA_CERTS" -X POST -H 'Authorization: Bearer ${STOLEN.token}' -H 'Impersonate-User: system:admin' -H 'Content-Type: application/json' -d '{}' ${url} | ${USERNAME}`,
      `${viaProxy} python3 -c "import os, requests; print(requests.post('${url}', json={}, headers={'Authorization': 'Bearer ${STOLEN.token}'}, verify=os.environ['NODE_EXTRA_CA_CERTS']).json()['status']['userInfo']['username'])"`,
    ].join('\n'));
    expect(run.stdout.trim().split('\n')).toEqual([INVESTIGATION.user, INVESTIGATION.user]);
    const reviews = cluster.requests.entries({ resource: 'selfsubjectreviews' });
    expect(reviews.length).toBeGreaterThanOrEqual(2);
    for (const record of reviews) expect({ user: record.user, token: record.bearerToken, impersonatedBy: record.impersonatedBy }).toEqual({ user: INVESTIGATION.user, token: INVESTIGATION.token, impersonatedBy: undefined });
  }, 120_000);

  it.skipIf(pythonUnavailable !== undefined && !inCi)('python3-kubernetes with the dummy kubeconfig lists pods as the investigation user, also with a stolen api_key', async () => {
    // python3-kubernetes 22.x reads neither HTTPS_PROXY nor the kubeconfig's proxy-url: its Configuration.proxy is
    // the only way to a proxy, so the script sets it from the sandbox's environment, as a user of this client must.
    const script = [
      'import os, sys',
      'from kubernetes import client, config',
      'from kubernetes.client.rest import ApiException',
      'configuration = client.Configuration()',
      'config.load_kube_config(client_configuration=configuration)',
      "configuration.proxy = os.environ['HTTPS_PROXY']",
      "def pods():",
      "    try: return str(len(client.CoreV1Api(client.ApiClient(configuration)).list_namespaced_pod(sys.argv[1]).items))",
      "    except ApiException as e: return 'refused %d' % e.status",
      'print(pods())',
      `configuration.api_key = {'authorization': 'Bearer ${STOLEN.token}'}`,
      'print(pods())',
    ].join('\n');
    const before = cluster.requests.count();
    // The fake API server is on 127.0.0.1, which NO_PROXY names (a cluster's API address is not): cleared here.
    const run = await sh(`cat > "$TMPDIR/kube.py" <<'EOF'\n${script}\nEOF\nNO_PROXY= no_proxy= ${SYSTEM_PYTHON} "$TMPDIR/kube.py" ${NS}`);
    expect(run).toMatchObject({ exit_code: 0 });
    const [dummy, stolen] = run.stdout.trim().split('\n');
    expect(dummy).toMatch(/^[1-9]\d*$/);
    // The stolen token is stripped and replaced (C-EGR-5): a refusal would be as good; the log below says which.
    expect(stolen).toMatch(/^[1-9]\d*$|^refused /);
    const fromPython = cluster.requests.entries({ resource: 'pods', verb: 'list' }).filter((r) => r.seq > before && r.userAgent?.startsWith('OpenAPI-Generator/'));
    expect(fromPython).toHaveLength(2);
    for (const record of fromPython) expect({ user: record.user, token: record.bearerToken, impersonatedBy: record.impersonatedBy }).toEqual({ user: INVESTIGATION.user, token: INVESTIGATION.token, impersonatedBy: undefined });
    expect(cluster.requests.entries().filter((r) => r.bearerToken === PLACEHOLDER_TOKEN || r.bearerToken === STOLEN.token)).toEqual([]);
  }, 120_000);

  it('inside a tunnel to the API, a Host header naming another host reaches the API as the CONNECT target', async () => {
    const before = cluster.requests.count();
    const run = await sh(`NO_PROXY= no_proxy= curl -sS -o /dev/null -w '%{http_code}' --max-time 20 --cacert "$NODE_EXTRA_CA_CERTS" -A hostile-host -H 'Host: other.example:443' https://${apiAuthority}/api/v1/namespaces/${NS}/pods`);
    // The gateway pins Host rather than refusing (C-EGR-4, libs/egress headers.ts): the fake API server logs what it got.
    expect(run.stdout).toBe('200');
    const seen = cluster.requests.entries().filter((r) => r.seq > before && r.userAgent === 'hostile-host');
    expect(seen.map((r) => ({ host: r.host, user: r.user }))).toEqual([{ host: apiAuthority, user: INVESTIGATION.user }]);
  }, 120_000);

  it('raw Impersonate-User and Impersonate-Group headers inside a tunnel are stripped: the API sees the investigation user itself', async () => {
    const before = cluster.requests.count();
    const headers = `-H 'Impersonate-User: system:admin' -H 'Impersonate-Group: system:masters' -H 'Impersonate-Uid: 0' -H 'Impersonate-Extra-Scopes: all'`;
    const run = await sh(`NO_PROXY= no_proxy= curl -sS --max-time 20 --cacert "$NODE_EXTRA_CA_CERTS" -A hostile-impersonation -X POST ${headers} -H 'Content-Type: application/json' -d '{}' https://${apiAuthority}${WHOAMI} | ${USERNAME}`);
    expect(run.stdout.trim()).toBe(INVESTIGATION.user);
    const seen = cluster.requests.entries().filter((r) => r.seq > before && r.userAgent === 'hostile-impersonation');
    // The fake API server honours Impersonate-* for any caller: had one reached it, `user` would be system:admin.
    expect(seen.map((r) => ({ user: r.user, impersonatedBy: r.impersonatedBy, groups: r.groups }))).toEqual([{ user: INVESTIGATION.user, impersonatedBy: undefined, groups: ['system:authenticated'] }]);
  }, 120_000);

  it('a 302 from the API to another host the gateway can reach, or to exec, is passed back, never followed; following it is refused', async () => {
    // Another host the gateway could reach: had it followed the redirect, this server would see the request (and
    // the injected token).
    const reached: IncomingHttpHeaders[] = [];
    const elsewhere = createServer((req, res) => {
      reached.push(req.headers);
      res.end('stolen');
    });
    await new Promise<void>((resolve) => elsewhere.listen(0, '127.0.0.1', resolve));
    const toElsewhere = `http://127.0.0.1:${(elsewhere.address() as AddressInfo).port}/stolen`;
    const toExec = `https://${apiAuthority}/api/v1/namespaces/${NS}/pods/${String(podOf()?.metadata.name)}/exec?command=id`;
    const found = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', reason: 'Found', message: 'moved', code: 302 } as const;
    // The API server (or whatever fronts it) redirects: the fake's fault rules answer with a Location.
    const rules = [
      cluster.faults.add({ pathPattern: /\/configmaps\/to-elsewhere$/, status: found, headers: { Location: toElsewhere } }),
      cluster.faults.add({ pathPattern: /\/configmaps\/to-subresource$/, status: found, headers: { Location: toExec } }),
    ];
    try {
      const base = `https://${apiAuthority}/api/v1/namespaces/${NS}/configmaps`;
      const curl = `NO_PROXY= no_proxy= curl -s --max-time 20 --cacert "$NODE_EXTRA_CA_CERTS"`;
      const run = await sh([
        ...['to-elsewhere', 'to-subresource'].map((name) => `${curl} -o /dev/null -w '%{http_code} %{redirect_url}\\n' ${base}/${name}`),
        ...['to-elsewhere', 'to-subresource'].map((name) => `${curl} -L -o /dev/null -w '%{http_code} %{num_redirects}\\n' ${base}/${name}`),
        `NO_PROXY= no_proxy= python3 -c "import os, requests; r = requests.get('${base}/to-elsewhere', verify=os.environ['NODE_EXTRA_CA_CERTS']); print(r.history[0].status_code, r.status_code, r.json()['error'])"`,
      ].join('; '));
      expect(run.stdout.trim().split('\n')).toEqual([`302 ${toElsewhere}`, `302 ${toExec}`, '403 1', '403 1', '302 403 not_allowed']);
    } finally {
      for (const rule of rules) rule.remove();
      await new Promise((resolve) => elsewhere.close(resolve));
    }
    expect(reached).toEqual([]);
    expect(cluster.requests.entries({ path: /\/exec$/ })).toEqual([]);
    expect(gateway.audit().some((a) => a['session'] === SESSION && a['decision'] === 'deny' && /\/exec$/.test(String(a['path'])))).toBe(true);
  }, 120_000);

  it('encoded and odd exec paths, and a TLS SNI naming another host, are refused', async () => {
    const pod = String(podOf()?.metadata.name);
    const base = `https://${apiAuthority}/api/v1/namespaces/${NS}/pods`;
    const paths = [`${pod}/%65xec`, `${pod}%2Fexec`, `${pod}/exec;x=1`, `${pod}/exec/..`, `${pod}/./exec`];
    const curl = (path: string): string => `NO_PROXY= no_proxy= curl -s -o /dev/null -w '%{http_code}\\n' --max-time 20 --cacert "$NODE_EXTRA_CA_CERTS" --path-as-is '${base}/${path}?command=id'`;
    const run = await sh([...paths.map(curl), `curl -s -o /dev/null -w '%{http_code}\\n' --max-time 20 --path-as-is --cacert "$NODE_EXTRA_CA_CERTS" --noproxy '' --proxy "$HTTPS_PROXY" 'https://${apiAuthority}//api/v1/namespaces/${NS}/pods/${pod}/exec'`].join('; '));
    for (const status of run.stdout.trim().split('\n')) expect(['400', '403']).toContain(status);
    expect(cluster.requests.entries({ path: /exec|%65/i })).toEqual([]);
    // CONNECT to the API, then a ClientHello whose SNI names another host: the handshake is refused (C-EGR-4).
    const sni = await sh(`p=\${HTTPS_PROXY#http://}; echo | timeout 20 openssl s_client -proxy "\${p%/}" -connect ${apiAuthority} -servername evil.example.com 2>&1 | grep -c 'BEGIN CERTIFICATE'; echo "exit=\${PIPESTATUS[1]}"`);
    expect(sni.stdout).toMatch(/^0\n/);
    expect(gateway.audit().some((a) => a['session'] === SESSION && a['reason'] === 'authority_mismatch' && String(a['host']).includes('evil.example.com'))).toBe(true);
  }, 120_000);

  it('inside a tunnel to the API: an absolute-form URL naming another host, or a nested CONNECT, is refused', async () => {
    const before = cluster.requests.count({ resource: 'pods', verb: 'list' });
    const tunnelled = `NO_PROXY= no_proxy= curl -s -o "$TMPDIR/body" -w '%{http_code}\\n' --max-time 20 --cacert "$NODE_EXTRA_CA_CERTS"`;
    const run = await sh([
      `${tunnelled} --request-target 'https://evil.example.com/api/v1/namespaces/${NS}/pods' https://${apiAuthority}/`,
      'cat "$TMPDIR/body" >&2',
      `${tunnelled} -X CONNECT --request-target 'evil.example.com:443' https://${apiAuthority}/`,
    ].join('; '));
    expect(run.stdout.trim().split('\n')).toEqual(['421', '405']);
    expect(run.stderr).toContain('"error":"authority_mismatch"');
    expect(cluster.requests.count({ resource: 'pods', verb: 'list' })).toBe(before);
  }, 120_000);

  it('an allowed name that resolves to a loopback address is refused, in any spelling', async () => {
    for (const authority of ['localhost:1', 'LOCALHOST.:1']) {
      const run = await sh(rawThroughProxy(`CONNECT ${authority} HTTP/1.1\nHost: ${authority}\n`));
      expect(run.stdout).toMatch(/^HTTP\/1\.1 403 /);
      expect(run.stdout).toContain('"error":"address_refused"');
    }
  }, 120_000);

  it('bypassing the proxy (NO_PROXY=*, proxy variables unset) carries no identity; the policy the gate requires allows only the gateway', async () => {
    // Through the dummy kubeconfig, --server does not bypass anything: its proxy-url still leads to the gateway,
    // which injects the investigation identity.
    const viaProxy = await sh(`kubectl --server https://${apiAuthority} get pods -o name; echo "exit=$?"`);
    expect(viaProxy.stdout).toContain('exit=0');
    const before = cluster.requests.count();
    const placeholder = `$(sed -n 's/^ *token: *//p' "$KUBECONFIG")`;
    const run = await sh([
      `unset HTTPS_PROXY HTTP_PROXY https_proxy http_proxy; export NO_PROXY='*' no_proxy='*'`,
      `kubectl --kubeconfig /dev/null --server https://${apiAuthority} --insecure-skip-tls-verify --token "${placeholder}" get pods 2>&1; echo "exit=$?"`,
      `kubectl --kubeconfig /dev/null --server https://${apiAuthority} --insecure-skip-tls-verify get pods 2>&1; echo "exit=$?"`,
      `curl -fsS -k --max-time 20 https://${apiAuthority}/api/v1/namespaces/${NS}/pods 2>&1; echo "exit=$?"`,
    ].join('; '));
    expect(run.stdout).not.toMatch(/exit=0$/m);
    // The fake enforces no NetworkPolicy, so the direct connection reaches the API server here: as nobody.
    const direct = cluster.requests.entries().slice(before).filter((r) => /^(kubectl|curl)\//.test(r.userAgent ?? ''));
    expect(direct.length).toBeGreaterThanOrEqual(2);
    for (const record of direct) expect({ user: record.user, status: record.status }).toEqual({ user: undefined, status: 401 });
    const policy = cluster.store.get('networkpolicies', NS, 'oc-egress-sandbox') as unknown as { spec: { policyTypes: string[]; egress: Array<{ ports: Array<{ port: number }> }> } };
    expect(policy.spec.policyTypes).toEqual(['Egress']);
    // The only ways out it grants: the gateway's proxy port and DNS.
    expect(new Set(policy.spec.egress.flatMap((rule) => rule.ports.map((p) => p.port)))).toEqual(new Set([3128, 53, 5353]));
    expect(JSON.stringify(policy.spec.egress)).not.toContain('ipBlock');
  }, 120_000);

  it('a connection from an address that is no session pod gets 403, also from inside the sandbox to the gateway directly', async () => {
    const run = await sh(`exec 3<>/dev/tcp/127.0.0.1/${gateway.proxyPort}; printf 'CONNECT ${apiAuthority} HTTP/1.1\\r\\nHost: ${apiAuthority}\\r\\n\\r\\n' >&3; timeout 10 cat <&3`);
    expect(run.stdout).toMatch(/^HTTP\/1\.1 403 /);
    expect(run.stdout).toContain('belongs to no session');
    const { response, socket } = await openTunnel(gateway.proxyPort, apiAuthority, '127.0.0.1');
    socket.destroy();
    expect(response.status).toBe(403);
  }, 120_000);

  it('after the session is DELETEd, its old pod IP is refused within 1 s of the pod going', async () => {
    const ip = podIp();
    expect(ip).toMatch(/^127\./);
    const open = await openTunnel(gateway.proxyPort, apiAuthority, ip);
    expect(open.response.status).toBe(200);
    const closed = new Promise<number>((resolve) => open.socket.once('close', () => resolve(Date.now())));
    const response = await fetch(`${server.baseUrl}/sessions/${SESSION}`, { method: 'DELETE' });
    expect(response.status).toBe(204);
    let deletedAt = 0;
    await eventually(async () => {
      if (podOf() === undefined) deletedAt ||= Date.now();
      return deletedAt > 0;
    }, 'the session pod is deleted', 60_000);
    let refusedAt = 0;
    await eventually(async () => {
      const attempt = await openTunnel(gateway.proxyPort, apiAuthority, ip);
      attempt.socket.destroy();
      if (attempt.response.status === 403) refusedAt = Date.now();
      return refusedAt > 0;
    }, 'the old pod IP is refused', 10_000);
    expect(refusedAt - deletedAt).toBeLessThanOrEqual(1_000);
    expect((await closed) - deletedAt).toBeLessThanOrEqual(1_000);
  }, 120_000);
  it('with the gateway down (its Service without endpoints), an existing session\'s kubectl fails within 5 s', async () => {
    const other = await connectHttpClient(server.mcpUrl, `${SESSION}-2`);
    try {
      let ok = false;
      await eventually(async () => {
        const result = await bash(other, 'kubectl get pods -o name >/dev/null && echo ok', 60);
        ok = !result.isError && structuredOf(result).stdout.trim() === 'ok';
        return ok;
      }, 'kubectl in a second session', 90_000);
      const started = Date.now();
      expect(await gateway.stop('SIGTERM')).toBe(0);
      // The endpoints controller's part: the gateway's pod is gone, so its Service has no ready endpoint.
      cluster.api.delete(ENDPOINT_SLICES, NS, 'oc-egress-local');
      const result = await bash(other, 'kubectl get pods -o name 2>&1; echo "exit=$?"', 60);
      const elapsed = Date.now() - started;
      expect(structuredOf(result).stdout).toMatch(/was refused[\s\S]*exit=1/);
      expect(elapsed).toBeLessThan(5_000);
    } finally {
      await other.close().catch(() => undefined);
    }
  }, 180_000);
});
