// The BUILT gateway process (`bin/cli-mcp-egress.js`, issue 20 items 3 and 6, C-EGR-8) as it runs in a cluster:
// against the fake API server (libs/testing) for its CA Secret, sandbox ConfigMap and pod informer, attributing
// connections by source pod IP. Its only routes that may reach loopback are Kubernetes routes from its
// --kubeconfig-file (C-EGR-3), so the upstreams are HTTPS servers on 127.0.0.1 named as clusters there, one per
// "new host", the gateway injecting the kubeconfig's token. The bench connects from a sandbox pod's IP
// (127.x.y.z, Linux routes all of 127/8 to lo).
import { spawn } from 'node:child_process';
import { randomInt } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { get as httpGet } from 'node:http';
import { createServer } from 'node:https';
import { createInterface } from 'node:readline';
import { join } from 'node:path';
import { sandboxLabels } from '../../dist/libs/podspec/src/index.js';
import { PODS, eventually, startFakeCluster } from '../../dist/libs/testing/src/index.js';
import { memoryMb } from './agent-process.mjs';
import { imageNodeFlags } from './image-entrypoint.mjs';

const BIN = new URL('../../bin/cli-mcp-egress.js', import.meta.url).pathname;
const NS = 'default';
const INSTANCE = 'bench';
const TOKEN = 'bench-investigation-token';

/** `count` HTTPS upstreams on 127.0.0.1 (one leaf for the IP, signed by `ca`), each answering 200 "ok". */
async function startUpstreams(ca, count) {
  const leaf = await ca.mintLeaf('127.0.0.1', true, 86_400_000);
  const servers = [];
  for (let i = 0; i < count; i += 1) {
    const server = createServer({ cert: leaf.cert, key: leaf.key }, (req, res) => {
      req.resume();
      res.writeHead(200, { 'content-type': 'text/plain', 'content-length': 2 });
      res.end('ok');
    });
    await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
    servers.push(server);
  }
  return servers;
}

/** The investigation kubeconfig: one cluster (and context) per upstream, one token user. */
function investigationKubeconfig(path, caPem, ports) {
  const caData = Buffer.from(caPem).toString('base64');
  const clusters = ports.map((port, i) => `- name: u${i}\n  cluster:\n    server: https://127.0.0.1:${port}\n    certificate-authority-data: ${caData}\n`).join('');
  const contexts = ports.map((_, i) => `- name: u${i}\n  context:\n    cluster: u${i}\n    user: inv\n    namespace: ${NS}\n`).join('');
  writeFileSync(path, `apiVersion: v1\nkind: Config\nclusters:\n${clusters}contexts:\n${contexts}current-context: u0\nusers:\n- name: inv\n  user:\n    token: ${TOKEN}\n`);
}

/** The node flags the gateway runs with: its image's ENTRYPOINT flags, or `BENCH_EGRESS_NODE_FLAGS` when set. */
export const gatewayNodeFlags = () => imageNodeFlags('egress', 'BENCH_EGRESS_NODE_FLAGS');

/** Spawns the built gateway with `gatewayNodeFlags()`; resolves with its ports once it logs `listening`. */
function spawnGateway(args) {
  const flags = gatewayNodeFlags();
  const child = spawn(process.execPath, [...flags, BIN, '--proxy-port', '0', '--admin-port', '0', ...args], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  return new Promise((resolve, reject) => {
    createInterface({ input: child.stderr }).on('line', (line) => {
      stderr += `${line}\n`;
      try {
        const entry = JSON.parse(line);
        if (entry.msg === 'listening') resolve({ child, proxyPort: entry.proxy_port, adminUrl: `http://127.0.0.1:${entry.admin_port}` });
      } catch {
        // not a log line
      }
    });
    child.once('exit', (code) => reject(new Error(`cli-mcp-egress exited with ${code}:\n${stderr}`)));
  });
}

function statusOf(url) {
  return new Promise((resolve, reject) => {
    httpGet(url, (res) => (res.resume(), resolve(res.statusCode))).once('error', reject);
  });
}

/** libs/testing's `eventually`, a failed attempt counting as not yet (the gateway may refuse until it is ready). */
export const until = (attempt, what) => eventually(() => attempt().catch(() => false), what, 60_000);

/**
 * Starts the fake cluster, `hosts` upstreams and the built gateway with a Running session pod at a random
 * loopback IP. Returns what the measurements need and `stop()`.
 */
export async function startBuiltGateway(egress, dir, hosts) {
  const cluster = await startFakeCluster({ kubelet: false, users: { 'bench-gateway-token': 'egress-gateway', [TOKEN]: 'investigator' }, token: 'bench-gateway-token' });
  const upstreamCa = await egress.RuntimeCa.generate('bench kube upstream CA');
  const upstreams = await startUpstreams(upstreamCa, hosts);
  const ports = upstreams.map((s) => s.address().port);
  investigationKubeconfig(join(dir, 'investigation.kubeconfig'), upstreamCa.certPem, ports);
  writeFileSync(join(dir, 'routes.json'), '{"allow": []}');
  let gateway;
  const stop = async () => {
    if (gateway && gateway.child.exitCode === null) {
      const exited = new Promise((resolve) => gateway.child.once('exit', resolve));
      gateway.child.kill('SIGTERM');
      setTimeout(() => gateway.child.kill('SIGKILL'), 5_000).unref();
      await exited;
    }
    for (const server of upstreams) server.closeAllConnections();
    await Promise.all(upstreams.map((server) => new Promise((resolve) => server.close(resolve))));
    await cluster.stop();
  };
  try {
    gateway = await spawnGateway([
      '--namespace', NS, '--instance-name', INSTANCE, '--kubeconfig', cluster.kubeconfigPath, '--kubeconfig-file', join(dir, 'investigation.kubeconfig'),
      '--routes-file', join(dir, 'routes.json'), '--ca-secret', `${INSTANCE}-egress-ca`, '--sandbox-configmap', `${INSTANCE}-egress-sandbox`,
      '--sandbox-proxy-url', `http://${INSTANCE}-egress.${NS}.svc:3128`,
    ]);
    await until(() => statusOf(`${gateway.adminUrl}/readyz`).then((status) => status === 200), 'the gateway /readyz');
    const podIp = `127.${randomInt(1, 255)}.${randomInt(0, 256)}.${randomInt(1, 255)}`;
    const pod = cluster.api.create(PODS, NS, {
      apiVersion: 'v1', kind: 'Pod',
      metadata: { name: 'bench-sandbox', labels: sandboxLabels(INSTANCE, 'bench-session') },
      spec: { containers: [{ name: 'agent', image: 'sandbox' }] },
    });
    cluster.api.mutatePod(NS, 'bench-sandbox', pod.metadata.uid, (p) => {
      p.status = { phase: 'Running', podIP: podIp, podIPs: [{ ip: podIp }] };
    });
    const caPem = String(cluster.store.get('configmaps', NS, `${INSTANCE}-egress-sandbox`)?.data?.['ca.crt'] ?? '');
    return {
      port: gateway.proxyPort, caPem, podIp, token: TOKEN, upstreamCa: upstreamCa.certPem, upstreamPorts: ports,
      rssMiB: async () => (await memoryMb(gateway.child.pid)).rss,
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}
