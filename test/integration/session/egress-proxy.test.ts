/**
 * `--local-network proxy` attacked from inside real bubblewrap sandboxes (issue 20 items 2 and 5): real kubectl,
 * curl and python3 (requests, urllib) against the fake API server over HTTPS, which knows two users — the
 * investigation user whose token only the gateway holds, and the one whose token the sandbox "stole". Whatever a
 * command does, the identity that reaches the API is the investigation user's, or the request is refused; nothing
 * leaves the sandbox but through the gateway; no real token is visible inside.
 */
import { deriveSessionToken } from '@cli-mcp/auth';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { agentProblem, bwrapProblem } from './support/environment.js';
import { describeWhenReady } from '../../support/prerequisites.js';
import { egressToolsProblem, INVESTIGATION, startEgressCluster, STOLEN, type EgressCluster } from './support/egress-cluster.js';
import { createSessionStack, HMAC_KEY, type SessionStack } from './support/session-stack.js';

const problem = agentProblem ?? bwrapProblem ?? egressToolsProblem;

const WHOAMI = '/apis/authentication.k8s.io/v1/selfsubjectreviews';
const USERNAME = 'python3 -c "import json,sys; print(json.load(sys.stdin)[\'status\'][\'userInfo\'][\'username\'])"';

describeWhenReady('--local-network proxy against a sandbox that tries to get around it', problem, () => {
  let api: EgressCluster;
  let stack: SessionStack;
  const run = async (command: string): Promise<string> => (await stack.run('s-egress', command)).response.stdout;

  beforeAll(async () => {
    api = await startEgressCluster();
    stack = await createSessionStack('bwrap', { network: 'proxy', egress: api.egress });
  });
  afterAll(async () => {
    await stack?.close();
    await api?.stop();
  });

  it('kubectl reaches the API as the investigation user, whatever token, server, kubeconfig, TLS flag or --as it is given', async () => {
    const whoami = 'auth whoami -o jsonpath={.status.userInfo.username}; echo';
    const out = await run([
      'kubectl get pods -o name',
      `kubectl ${whoami}`,
      `kubectl --token ${STOLEN.token} ${whoami}`,
      `kubectl --server ${api.url} --insecure-skip-tls-verify ${whoami}`,
      `kubectl --as system:admin --as-group system:masters ${whoami}`,
      // A kubeconfig of the sandbox's own, with the stolen token and no TLS check, reaches the API through the
      // proxy variables like any client: the gateway still decides who calls.
      `printf '%s\\n' 'apiVersion: v1' 'kind: Config' 'clusters: [{name: c, cluster: {server: "${api.url}", insecure-skip-tls-verify: true}}]' \\
        'users: [{name: u, user: {token: ${STOLEN.token}}}]' 'contexts: [{name: c, context: {cluster: c, user: u}}]' 'current-context: c' > /tmp/other`,
      `kubectl --kubeconfig /tmp/other ${whoami}`,
    ].join('\n'));
    expect(out.split('\n')).toEqual(['pod/x', ...Array(5).fill(INVESTIGATION.user)]);
  });

  it('curl and python3 (requests, urllib) with the stolen token reach the API as the investigation user; the API never sees that token', async () => {
    const auth = `-H 'Authorization: Bearer ${STOLEN.token}'`;
    const out = await run([
      `curl -sS -X POST ${auth} -H 'Content-Type: application/json' -d '{}' ${api.url}${WHOAMI} | ${USERNAME}`,
      `python3 -c "import requests; print(requests.post('${api.url}${WHOAMI}', json={}, headers={'Authorization': 'Bearer ${STOLEN.token}'}).json()['status']['userInfo']['username'])"`,
      `python3 -c "import json, urllib.request as u; r = u.Request('${api.url}${WHOAMI}', data=b'{}', method='POST', headers={'Authorization': 'Bearer ${STOLEN.token}', 'Content-Type': 'application/json'}); print(json.load(u.urlopen(r))['status']['userInfo']['username'])"`,
    ].join('\n'));
    expect(out.split('\n')).toEqual(Array(3).fill(INVESTIGATION.user));
    const seen = api.cluster.requests.entries();
    expect(seen.length).toBeGreaterThan(0);
    expect(seen.filter((record) => record.user !== INVESTIGATION.user || record.bearerToken !== INVESTIGATION.token)).toEqual([]);
  });

  it('a direct connection has no route: proxy variables unset or NO_PROXY=*, any client', async () => {
    const before = api.cluster.requests.count();
    const unset = 'env -u HTTPS_PROXY -u https_proxy -u HTTP_PROXY -u http_proxy';
    const out = await run([
      `no_proxy='*' NO_PROXY='*' curl -sS --max-time 10 ${api.url}/version 2>&1 | tail -1; echo "curl=\${PIPESTATUS[0]}"`,
      `${unset} python3 -c "import urllib.request as u; u.urlopen('${api.url}/version', timeout=10)" 2>&1 | tail -1`,
      `${unset} KUBECONFIG= kubectl --server ${api.url} --insecure-skip-tls-verify --token ${STOLEN.token} get pods 2>&1 | tail -1`,
      '(exec 3<>/dev/tcp/1.1.1.1/443) 2>&1 | tail -1',
    ].join('\n'));
    const lines = out.split('\n');
    expect(lines[0]).toMatch(/Failed to connect|Couldn't connect/);
    expect(lines[1]).toBe('curl=7');
    expect(lines[2]).toMatch(/Network is unreachable/);
    expect(lines[3]).toMatch(/network is unreachable/);
    expect(lines[4]).toMatch(/Network is unreachable/);
    expect(api.cluster.requests.count()).toBe(before);
  });

  it('a host that is not a route gets a 403 naming --egress-allow; a CONNECT relayed inside the sandbox is still the gateway\'s', async () => {
    const relay = `python3 -c "
import socket, threading
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1); s.bind(('127.0.0.1', 19999)); s.listen(); print('up', flush=True)
def pump(a, b):
    while (d := a.recv(65536)): b.sendall(d)
    b.shutdown(socket.SHUT_WR)
while True:
    c = s.accept()[0]; g = socket.socket(socket.AF_UNIX); g.connect('/.cli-mcp/egress/gateway.sock')
    threading.Thread(target=pump, args=(c, g), daemon=True).start(); threading.Thread(target=pump, args=(g, c), daemon=True).start()
" > /tmp/relay.out & relay=$!; until grep -q up /tmp/relay.out; do sleep 0.05; done`;
    const out = await run([
      "exec 3<>/dev/tcp/127.0.0.1/3128; printf 'CONNECT other.example:443 HTTP/1.1\\r\\nHost: other.example:443\\r\\n\\r\\n' >&3; { cat <&3; echo; } | tr -d '\\r' | sed -n '1p;$p'; exec 3<&-",
      relay,
      'curl -sS --proxy http://127.0.0.1:19999 https://other.example/ 2>&1 | tail -1',
      `curl -sS --proxy http://127.0.0.1:19999 -X POST -H 'Authorization: Bearer ${STOLEN.token}' -d '{}' ${api.url}${WHOAMI} | ${USERNAME}`,
      'kill $relay',
    ].join('\n'));
    const [status, body, viaRelay, identity] = out.split('\n');
    expect(status).toBe('HTTP/1.1 403 Forbidden');
    expect(JSON.parse(body!)).toMatchObject({ error: 'not_allowed', host: 'other.example:443', flag: '--egress-allow other.example:443' });
    expect(viaRelay).toMatch(/CONNECT tunnel failed, response 403/);
    expect(identity).toBe(INVESTIGATION.user);
  });

  it('refuses kubectl exec, attach, port-forward, cp and proxy subresources, encoded paths included; none reaches the API', async () => {
    const out = await run([
      'kubectl exec x -- true 2>&1 | tail -1',
      'kubectl attach x 2>&1 | tail -1',
      'timeout 20 kubectl port-forward pod/x 18080:80 2>&1 | tail -1',
      'kubectl cp x:/etc/hosts /tmp/hosts 2>&1 | tail -1',
      'kubectl proxy --port 18001 > /tmp/kp 2>&1 & until grep -q Starting /tmp/kp; do sleep 0.05; done',
      'curl -sS -o /dev/null -w "%{http_code}\\n" 127.0.0.1:18001/api/v1/namespaces/default/pods',
      'curl -sS -o /dev/null -w "%{http_code}\\n" 127.0.0.1:18001/api/v1/namespaces/default/pods/x/proxy/',
      'kill %1',
      ...['pods/x/%65xec', 'pods/x%2Fexec', 'pods/x/exec;x', 'pods/x/attach/..', 'pods/x/portforward'].map(
        (path) => `curl -sS --path-as-is -o /dev/null -w "%{http_code}\\n" -X POST '${api.url}/api/v1/namespaces/default/${path}?command=true'`,
      ),
    ].join('\n'));
    const lines = out.split('\n');
    // kubectl speaks WebSocket (or SPDY) for all four; the gateway refuses the upgrade before any path reaches the API.
    for (const refusal of lines.slice(0, 4)) expect(refusal).toMatch(/^(Error from server|error: error upgrading connection): Upgrade \(WebSocket, SPDY, h2c\) is not allowed through the egress gateway$/);
    // %65xec and %2F are decoded the way the API server reads them (then denied); `;` and dot segments are ambiguous (400).
    expect(lines.slice(4)).toEqual(['200', '403', '403', '403', '400', '400', '403']);
    expect(api.cluster.requests.entries({ path: /\/(exec|attach|portforward|proxy)\b|%65xec|%2Fexec/i })).toEqual([]);
  });

  it('shows no real token and no agent token: env, /proc/*/environ, ps eww, $KUBECONFIG, no service-account mount', async () => {
    const out = await run([
      '{ env; for p in /proc/[0-9]*; do cat $p/environ $p/cmdline; done; ps eww -e; cat "$KUBECONFIG"; } 2>/dev/null | tr "\\0" "\\n" > /tmp/all',
      'grep -c "^HTTPS_PROXY=http://127.0.0.1:3128$" /tmp/all; grep -c "token: egress-gateway-managed" /tmp/all',
      'ls /var/run/secrets/kubernetes.io 2>&1 | tail -1',
      'cat /tmp/all',
    ].join('\n'));
    const [proxyLines, placeholder, serviceAccount, ...all] = out.split('\n');
    expect(Number(proxyLines)).toBeGreaterThanOrEqual(2);
    expect(placeholder).toBe('1');
    expect(serviceAccount).toMatch(/No such file or directory/);
    const text = all.join('\n');
    expect(text).not.toContain(INVESTIGATION.token);
    expect(text).not.toContain(deriveSessionToken(HMAC_KEY, 's-egress'));
  });
});
