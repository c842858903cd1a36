// Issue 20 item 5 on Kubernetes (C-EGR-1, C-EGR-2, C-EGR-5, C-EGR-6): hostile commands from INSIDE a real sandbox
// pod, behind the built `cli-mcp-egress` (the cluster: support/hostile-sandbox.ts). Covered here: kubectl with
// --token/--as/--insecure-skip-tls-verify, the token scan of the pod, hosts outside the routes, exec/attach/
// port-forward/cp, curl and python3 requests with a stolen token, encoded exec paths, a foreign SNI, an absolute-form
// URL or nested CONNECT inside the tunnel, DNS to loopback, bypassing the proxy, spoofed and revoked source
// addresses, the gateway going down. python3-kubernetes, a foreign Host header, raw Impersonate-* headers and
// redirects: egress-hostile-clients.test.ts.
//
// What the fake cannot enforce, and is therefore asserted differently (docs/egress.md, "Hostile tests on the fake
// cluster"): the fake has no NetworkPolicy enforcement, no network namespace, no filesystem or PID isolation. A
// direct connection from the sandbox to the API server therefore CONNECTS here; the test proves it carries no
// identity (401), and that the sandbox NetworkPolicy the gate requires allows nothing but the gateway (and DNS).
// A pod process could also bind another 127/8 address and pose as another pod; in a cluster the CNI stops source
// spoofing. Only the pod's own files, environment and processes are searched for the token: the host's are visible.
import { readFileSync } from 'node:fs';
import { PLACEHOLDER_TOKEN } from '@cli-mcp/egress';
import { ENDPOINT_SLICES, type FakeCluster, type KubeObject } from '@cli-mcp/testing';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { openTunnel } from '../../../libs/egress/test/client.js';
import { egressSkipReason, type EgressProcess } from '../../integration/egress/support/egress-process.js';
import { bash, connectHttpClient, eventually, structuredOf } from '../mcp/support/mcp-client.js';
import type { ServerProcess } from '../mcp/support/server-process.js';
import { INVESTIGATION, NS, SERVER, startHostileSandbox, STOLEN, USERNAME, WHOAMI, type HostileSandbox } from './support/hostile-sandbox.js';
import { describeWhenReady } from '../../support/prerequisites.js';

const SESSION = 'inv-egress-hostile';

let box: HostileSandbox;
let cluster: FakeCluster;
let gateway: EgressProcess;
let server: ServerProcess;
let apiAuthority: string;

const sh = (command: string): ReturnType<HostileSandbox['sh']> => box.sh(command);

/** A raw request to the gateway from inside the sandbox (bash's /dev/tcp), through the pod's proxy address. */
function rawThroughProxy(request: string): string {
  const text = request.replace(/\r?\n/g, '\\r\\n');
  return `p=\${HTTPS_PROXY#http://}; p=\${p%/}; exec 3<>"/dev/tcp/\${p%:*}/\${p##*:}"; printf '${text}\\r\\n' >&3; timeout 10 cat <&3`;
}

const podOf = (): KubeObject | undefined => box.podOf();
const podIp = (): string => String((podOf()?.['status'] as { podIP?: string } | undefined)?.podIP ?? '');

describeWhenReady('hostile commands inside a Kubernetes sandbox behind cli-mcp-egress (issue 20 item 5)', egressSkipReason, () => {
  beforeAll(async () => {
    box = await startHostileSandbox(SESSION);
    ({ cluster, gateway, server, apiAuthority } = box);
  }, 180_000);

  afterAll(() => box?.stop(), 60_000);

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

  it('a host not in the routes, an IP literal and a variant of the API address get 403 naming the host, the routes file and the CR field', async () => {
    const api = new URL(cluster.url);
    for (const authority of ['example.com:443', '10.0.0.1:443', `[::ffff:${api.hostname}]:${api.port}`, `localhost:${api.port}`]) {
      const run = await sh(rawThroughProxy(`CONNECT ${authority} HTTP/1.1\nHost: ${authority}\n`));
      expect(run.stdout).toMatch(/^HTTP\/1\.1 403 /);
      expect(run.stdout).toContain('"error":"not_allowed"');
      // C-EGR-2 on Kubernetes: the 403 names the gateway's routes file and the CR field, not the laptop's flag.
      expect(run.stdout).toContain('"routes_file":"add ');
      expect(run.stdout).toContain('"field":"spec.proxy.targets[].domains"');
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
    // The only way out it grants: the gateway's proxy port (no DNS: --sandbox-dns none, the default).
    expect(policy.spec.egress.flatMap((rule) => rule.ports.map((p) => p.port))).toEqual([3128]);
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
