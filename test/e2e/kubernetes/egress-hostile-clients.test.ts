// Issue 20 item 5 on Kubernetes (C-EGR-4, C-EGR-5): real clients and raw headers from INSIDE a real sandbox pod,
// behind the built `cli-mcp-egress` (the cluster: support/hostile-sandbox.ts; the rest of the hostile list:
// egress-hostile.test.ts). Covered here:
// - python3-kubernetes (Debian's 22.x) with the dummy kubeconfig, and with a stolen token as its api_key;
// - a Host header naming another host inside a CONNECT tunnel: pinned to the CONNECT target (the fake API server's
//   request log records the Host it received);
// - raw Impersonate-User/-Group/-Uid/-Extra-* headers: stripped (the fake honours them for any caller);
// - a 302 from the API (a fake fault rule with a Location) to another host the gateway can reach, or to exec:
//   passed back unchanged, never followed by the gateway; a client that follows it is refused;
// - no resolver, as `--sandbox-dns none` gives a pod (loopback as the only nameserver, the gateway's Service name in
//   /etc/hosts from hostAliases): kubectl, curl and python requests work through the proxy, a lookup fails.
// Not covered on Kubernetes: a redirect from a non-Kubernetes allow route. The fake cluster's hosts are all on
// loopback, which the gateway refuses for allow routes (C-EGR-3); the unit spec (libs/egress/src/gateway.connect.spec.ts)
// covers that case with a test resolver.
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { PLACEHOLDER_TOKEN } from '@cli-mcp/egress';
import type { FakeCluster } from '@cli-mcp/testing';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { pythonClientUnavailable, SYSTEM_PYTHON } from '../../integration/fake-kube/python-client.js';
import { egressSkipReason, type EgressProcess } from '../../integration/egress/support/egress-process.js';
import { eventually } from '../mcp/support/mcp-client.js';
import { INVESTIGATION, NS, startHostileSandbox, STOLEN, USERNAME, WHOAMI, type HostileSandbox } from './support/hostile-sandbox.js';
import { describeWhenReady, itWhenReady } from '../../support/prerequisites.js';

const SESSION = 'inv-egress-hostile-clients';
// python3-kubernetes lives in the system Python (.ci/run installs it): under CI=true its absence fails its test.
const pythonUnavailable = pythonClientUnavailable();

let box: HostileSandbox;
let cluster: FakeCluster;
let gateway: EgressProcess;
let apiAuthority: string;

const sh = (command: string): ReturnType<HostileSandbox['sh']> => box.sh(command);

describeWhenReady('real clients and raw headers inside a Kubernetes sandbox behind cli-mcp-egress (issue 20 item 5)', egressSkipReason, () => {
  beforeAll(async () => {
    box = await startHostileSandbox(SESSION);
    ({ cluster, gateway, apiAuthority } = box);
    // The gateway knows the pod once its informer has seen the pod's IP: until then its requests get 403.
    await eventually(async () => (await box.sh('kubectl get pods -o name >/dev/null && echo ok')).stdout.trim() === 'ok', 'kubectl through the gateway', 90_000);
  }, 180_000);

  afterAll(() => box?.stop(), 60_000);

  itWhenReady('python3-kubernetes with the dummy kubeconfig lists pods as the investigation user, also with a stolen api_key', pythonUnavailable, async () => {
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
    const toExec = `https://${apiAuthority}/api/v1/namespaces/${NS}/pods/${String(box.podOf()?.metadata.name)}/exec?command=id`;
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

  it('without a resolver (--sandbox-dns none: loopback nameserver, the proxy\'s name from hostAliases), kubectl, curl and requests work; lookups fail', async () => {
    // The fake kubelet runs pods as host processes with the host's resolver, and gives them the proxy as an IP. The
    // command rebuilds what a pod without DNS has, in a mount namespace of its own: resolv.conf naming only
    // 127.0.0.1, /etc/hosts with the hostAliases line, HTTPS_PROXY and the kubeconfig's proxy-url by the Service's
    // name. Clients behind a proxy then resolve only the proxy's name, from /etc/hosts; the gateway resolves the rest.
    const service = `oc-egress.${NS}.svc`;
    const script = [
      'set -u',
      'ip=$(printf %s "$HTTPS_PROXY" | sed -E "s#^http://([0-9.]+):[0-9]+\\$#\\1#")',
      'printf "nameserver 127.0.0.1\\n" > "$TMPDIR/resolv.conf"',
      `printf "127.0.0.1 localhost\\n%s ${service}\\n" "$ip" > "$TMPDIR/hosts"`,
      `sed "s#http://$ip:3128#http://${service}:3128#" "$KUBECONFIG" > "$TMPDIR/kubeconfig"`,
      `cat > "$TMPDIR/no-dns.sh" <<'INNER'`,
      'mount --bind "$TMPDIR/resolv.conf" /etc/resolv.conf && mount --bind "$TMPDIR/hosts" /etc/hosts || exit 99',
      `export HTTPS_PROXY=http://${service}:3128 HTTP_PROXY=http://${service}:3128 https_proxy=http://${service}:3128 http_proxy=http://${service}:3128 NO_PROXY= no_proxy= KUBECONFIG="$TMPDIR/kubeconfig"`,
      'getent hosts example.com >/dev/null; echo "lookup $?"',
      `python3 -c "import socket\ntry: socket.getaddrinfo('kubernetes.default.svc.cluster.local', 443); print('resolved')\nexcept OSError: print('no-dns')"`,
      `grep -c "${service}" "$KUBECONFIG" | sed 's/^/proxy-url /'`,
      'echo "kubectl $(kubectl get pods -o name | wc -l)"',
      `echo "curl $(curl -sS -o /dev/null -w '%{http_code}' --max-time 20 --cacert "$NODE_EXTRA_CA_CERTS" -A no-dns-curl https://${apiAuthority}/api/v1/namespaces/${NS}/pods)"`,
      `python3 -c "import os, requests; print('requests', requests.get('https://${apiAuthority}/api/v1/namespaces/${NS}/pods', verify=os.environ['NODE_EXTRA_CA_CERTS'], headers={'User-Agent': 'no-dns-requests'}).status_code)"`,
      'INNER',
      'unshare -rm sh "$TMPDIR/no-dns.sh"',
    ].join('\n');
    const before = cluster.requests.count();
    const run = await sh(script);
    expect(run).toMatchObject({ exit_code: 0 });
    const lines = run.stdout.trim().split('\n');
    // getent fails (2: not found). The kubeconfig really names the proxy by the Service's name, not its IP.
    expect(lines).toEqual([expect.stringMatching(/^lookup [1-9]$/), 'no-dns', expect.stringMatching(/^proxy-url [1-9]\d*$/), expect.stringMatching(/^kubectl [1-9]\d*$/), 'curl 200', 'requests 200']);
    const seen = cluster.requests.entries().filter((r) => r.seq > before && (r.userAgent === 'no-dns-curl' || r.userAgent === 'no-dns-requests' || r.userAgent?.startsWith('kubectl')));
    expect(seen.length).toBeGreaterThanOrEqual(3);
    for (const record of seen) expect({ user: record.user, token: record.bearerToken }).toEqual({ user: INVESTIGATION.user, token: INVESTIGATION.token });
  }, 120_000);
});
