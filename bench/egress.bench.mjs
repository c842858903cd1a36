// Egress gateway core (issue 20 item 6, C-EGR-8), against a direct connection in the same run: added latency per
// request on warm tunnels with 10 concurrent clients, the first CONNECT to a new host over the upstream's own
// handshake, leaf mint cold and warm, and the gateway's RSS (its own process) with 100 open tunnels. Loopback only:
// the gateway resolves every name to a public test address that its dialer maps to the local upstream.
// EGRESS_PROF=<dir> writes a CPU profile of the gateway process there.
import { fork } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent, request } from 'node:http';
import { createServer } from 'node:https';
import { connect } from 'node:net';
import { performance } from 'node:perf_hooks';
import { checkServerIdentity, connect as tlsConnect } from 'node:tls';
import { stopAgent } from './lib/agent-process.mjs';
import { gatewayNodeFlags, startBuiltGateway, until } from './lib/egress-built-gateway.mjs';
import { buildEgress } from './lib/egress-build.mjs';
import { runFlood } from './lib/egress-flood.mjs';
import { agentStartCost, startRelayAgent } from './lib/egress-local-path.mjs';
import { atMostMs, quantityGoal } from './lib/goals.mjs';
import { median, ms, percentile, printTable } from './lib/stats.mjs';

const CLIENTS = 10;
const REQUESTS = Number(process.env.BENCH_EGRESS_REQUESTS ?? 300);
const WARMUP = 50;
const NEW_HOSTS = 30;
const TUNNELS = 100;
const FLOOD = Number(process.env.BENCH_EGRESS_FLOOD ?? 10_000);

/** An agent over one pre-opened socket: every request of a client reuses its warm connection. */
class OneSocketAgent extends Agent {
  constructor(socket) {
    super({ keepAlive: true, maxSockets: 1 });
    this.socket = socket;
  }
  createConnection() {
    if (!this.socket) throw new Error('the warm connection was lost');
    const socket = this.socket;
    this.socket = undefined;
    return socket;
  }
}

function get(agent, host, headers = {}) {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const req = request({ agent, path: '/version', headers: { host, ...headers } }, (res) => {
      res.resume();
      res.on('end', () => (res.statusCode === 200 ? resolve(performance.now() - started) : reject(new Error(`status ${res.statusCode}`))));
    });
    req.on('error', reject);
    req.end();
  });
}

/**
 * A TLS tunnel through the gateway to `host:443`, or to the authority `host` when it has a port (an IP: no SNI,
 * the IP checked), from `localAddress` when given (a sandbox pod's IP, for the built gateway's attribution).
 */
function tunnel(port, host, ca, localAddress) {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port, noDelay: true, ...(localAddress ? { localAddress } : {}) });
    let head = '';
    const onData = (chunk) => {
      head += chunk.toString('latin1');
      if (!head.includes('\r\n\r\n')) return;
      socket.off('data', onData);
      if (!head.startsWith('HTTP/1.1 200')) return reject(new Error(head.split('\r\n')[0]));
      const tls = tlsConnect({ socket, ca, ...tlsName(host) });
      tls.once('secureConnect', () => resolve(tls));
      tls.once('error', reject);
    };
    socket.on('data', onData);
    socket.once('error', reject);
    const authority = host.includes(':') ? host : `${host}:443`;
    socket.write(`CONNECT ${authority} HTTP/1.1\r\nHost: ${authority}\r\n\r\n`);
  });
}

/** SNI and identity check: a name as SNI; an IP authority (`127.0.0.1:port`) sends none and checks the IP. */
function tlsName(host) {
  if (!host.includes(':')) return { servername: host };
  const ip = host.slice(0, host.lastIndexOf(':'));
  return { checkServerIdentity: (_name, cert) => checkServerIdentity(ip, cert) };
}

function direct(port, host, ca) {
  return new Promise((resolve, reject) => {
    const tls = tlsConnect({ host: '127.0.0.1', port, ca, noDelay: true, ...tlsName(host) });
    tls.once('secureConnect', () => resolve(tls));
    tls.once('error', reject);
  });
}

/** A new connection (`open()`) and its first request to `host`: the time of both; the connection is then closed. */
async function firstRequest(open, host, headers) {
  const started = performance.now();
  const agent = new OneSocketAgent(await open());
  await get(agent, host, headers);
  const elapsed = performance.now() - started;
  agent.destroy();
  return elapsed;
}

/** `count` connections (`open()`), each with one request to `host` done, so the upstream side is open too. */
async function openTunnels(count, open, host) {
  const agents = [];
  for (let i = 0; i < count; i += 1) {
    const agent = new OneSocketAgent(await open());
    agents.push(agent);
    await get(agent, host);
  }
  return agents;
}

async function warmLatencies(open, host = 'warm.test', headers = {}) {
  const agents = await Promise.all(Array.from({ length: CLIENTS }, () => open().then((socket) => new OneSocketAgent(socket))));
  const all = [];
  await Promise.all(agents.map(async (agent) => {
    for (let i = 0; i < WARMUP; i += 1) await get(agent, host, headers);
    for (let i = 0; i < REQUESTS; i += 1) all.push(await get(agent, host, headers));
  }));
  for (const agent of agents) agent.destroy();
  return all;
}

async function startUpstream(egress) {
  const ca = await egress.RuntimeCa.generate('bench upstream CA');
  const leaves = new egress.LeafCache(ca);
  const server = createServer({ SNICallback: (name, cb) => leaves.context(name, false).then((c) => cb(null, c), cb) }, (req, res) => {
    req.resume();
    res.writeHead(200, { 'content-type': 'text/plain', 'content-length': 2 });
    res.end('ok');
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { ca, leaves, server, port: server.address().port };
}

function startGatewayProcess(module, upstream, hosts, socketPath) {
  const child = fork(new URL('./lib/egress-gateway-process.mjs', import.meta.url), { stdio: 'inherit', execArgv: process.env.EGRESS_PROF ? ['--cpu-prof', '--cpu-prof-dir', process.env.EGRESS_PROF] : [] });
  const ask = (message) => new Promise((resolve) => {
    child.once('message', resolve);
    child.send(message);
  });
  return ask({ module, upstreamPort: upstream.port, upstreamCa: upstream.ca.certPem, hosts, socketPath }).then((ready) => ({ ...ready, child, ask }));
}

/**
 * The built `cli-mcp-egress` process (bench/lib/egress-built-gateway.mjs), as a sandbox pod reaches it: from the pod's
 * IP, to Kubernetes routes whose upstreams are local HTTPS servers, the investigation token injected. Direct: the
 * same upstreams with the token sent by the client. Same shapes as the library part above.
 */
async function runBuiltGatewayPart(egress, dir) {
  const gw = await startBuiltGateway(egress, dir, NEW_HOSTS + 1);
  const opened = [];
  try {
    const [warm, ...fresh] = gw.upstreamPorts.map((port) => `127.0.0.1:${port}`);
    const auth = { authorization: `Bearer ${gw.token}` };
    await until(() => tunnel(gw.port, warm, gw.caPem, gw.podIp).then((tls) => (tls.destroy(), true)), 'the pod attributed');
    const readyRss = await gw.rssMiB();
    const directMs = [];
    const proxiedMs = [];
    for (let round = 0; round < 2; round += 1) {
      directMs.push(...await warmLatencies(() => direct(gw.upstreamPorts[0], warm, gw.upstreamCa), warm, auth));
      proxiedMs.push(...await warmLatencies(() => tunnel(gw.port, warm, gw.caPem, gw.podIp), warm));
    }
    // First request to a new host: each upstream is a route the gateway has not connected to yet; direct goes to
    // the same upstream on a fresh connection right after.
    const firstProxied = [];
    const firstDirect = [];
    for (const host of fresh) {
      firstProxied.push(await firstRequest(() => tunnel(gw.port, host, gw.caPem, gw.podIp), host));
      firstDirect.push(await firstRequest(() => direct(Number(host.split(':')[1]), host, gw.upstreamCa), host, auth));
    }
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const idleRss = await gw.rssMiB();
    opened.push(...await openTunnels(TUNNELS, () => tunnel(gw.port, warm, gw.caPem, gw.podIp), warm));
    const rss = await gw.rssMiB();
    const added50 = median(proxiedMs) - median(directMs);
    const added99 = percentile(proxiedMs, 99) - percentile(directMs, 99);
    const firstAdded = median(firstProxied) - median(firstDirect);
    printTable(`Egress gateway PROCESS (built cli-mcp-egress, node ${gatewayNodeFlags().join(' ') || '(no flags)'} as the image's ENTRYPOINT unless BENCH_EGRESS_NODE_FLAGS, fake cluster, attributed by pod IP, Kubernetes routes, token injected): ${CLIENTS} clients × ${REQUESTS} GETs per round, 2 rounds`, ['measure', 'direct', 'through cli-mcp-egress', 'added', 'goal'], [
      ['request p50, warm, 10 clients', ms(median(directMs)), ms(median(proxiedMs)), ms(added50), `≤ 2 ms ${added50 <= 2 ? '✓' : '✗'}`],
      ['request p99, warm, 10 clients', ms(percentile(directMs, 99)), ms(percentile(proxiedMs, 99)), ms(added99), `≤ 10 ms ${added99 <= 10 ? '✓' : '✗'}`],
      [`first request to a new host (median of ${NEW_HOSTS})`, ms(median(firstDirect)), ms(median(firstProxied)), ms(firstAdded), `≤ 15 ms ${firstAdded <= 15 ? '✓' : '✗'}`],
      [`RSS at ready / idle after the runs above / ${TUNNELS} open tunnels`, '', `${readyRss.toFixed(1)} / ${idleRss.toFixed(1)} / ${rss.toFixed(1)} MiB`, '', `≤ 128 MiB ${rss <= 128 ? '✓' : '✗'}`],
    ]);
    atMostMs('egress', 'cli-mcp-egress process: added latency p50, warm, 10 clients', added50, 2);
    atMostMs('egress', 'cli-mcp-egress process: added latency p99, warm, 10 clients', added99, 10);
    atMostMs('egress', 'cli-mcp-egress process: first request to a new host', firstAdded, 15);
    quantityGoal('egress', 'cli-mcp-egress process: idle RSS after the latency runs', idleRss, { unit: 'MiB', atMost: 128 });
    quantityGoal('egress', `cli-mcp-egress process: RSS with ${TUNNELS} open tunnels`, rss, { unit: 'MiB', atMost: 128 });
  } finally {
    for (const agent of opened) agent.destroy();
    await gw.stop();
  }
}

/**
 * Issue 20 item 6: another session's 10,000 CONNECTs and its slow request heads (bench/lib/egress-flood.mjs, a
 * process of its own) must not starve this one. This session's warm requests and new tunnels are measured before
 * and while the flood runs; every one must succeed, and the p99 may grow by at most the proxy's own 10 ms budget.
 */
async function runFloodPart(gw) {
  const before = await warmLatencies(() => tunnel(gw.port, 'warm.test', gw.caPem));
  let outcome;
  const flood = runFlood(gw.floodPort, { total: FLOOD, slow: 300, window: 64 }).then((result) => (outcome = result));
  const during = [];
  const fresh = [];
  do {
    during.push(...await warmLatencies(() => tunnel(gw.port, 'warm.test', gw.caPem)));
    fresh.push(await firstRequest(() => tunnel(gw.port, 'warm.test', gw.caPem), 'warm.test'));
  } while (outcome === undefined);
  await flood;
  const grown = percentile(during, 99) - percentile(before, 99);
  const statuses = Object.entries(outcome.statuses).map(([status, n]) => `${n} × ${status}`).join(', ');
  printTable(`Egress gateway under a flood from another session: ${FLOOD} CONNECTs (64 at a time) and 300 held half-heads, ${(outcome.elapsedMs / 1000).toFixed(1)} s; the flood got ${statuses}`,
    ['this session', 'before', 'during the flood', 'grown', 'goal'], [
      [`warm request p50 (${CLIENTS} clients, ${before.length} / ${during.length} requests, all answered)`, ms(median(before)), ms(median(during)), ms(median(during) - median(before)), ''],
      ['warm request p99', ms(percentile(before, 99)), ms(percentile(during, 99)), ms(grown), `≤ 10 ms ${grown <= 10 ? '✓' : '✗'}`],
      [`new tunnel + first request (median of ${fresh.length})`, '', ms(median(fresh)), '', ''],
    ]);
  atMostMs('egress', `another session's ${FLOOD} CONNECTs and slow heads: this session's p99 grows`, grown, 10);
}

export async function runEgressBench() {
  const { dir, module } = await buildEgress();
  const egress = await import(module);
  const upstream = await startUpstream(egress);
  const newHosts = Array.from({ length: NEW_HOSTS * 2 }, (_, i) => `new-${i}.test`);
  const localHosts = Array.from({ length: NEW_HOSTS }, (_, i) => `local-${i}.test`);
  const socketDir = mkdtempSync(join(tmpdir(), 'egress-bench-'));
  const socketPath = join(socketDir, 'gateway.sock');
  const gw = await startGatewayProcess(module, upstream, ['warm.test', ...newHosts, ...localHosts], socketPath);
  const opened = [];
  let relay;
  try {
    for (const host of ['warm.test', ...newHosts, ...localHosts]) await upstream.leaves.context(host, false);
    relay = await startRelayAgent(socketPath);
    // Warm latency, alternating direct, proxied and local-path (agent relay → Unix socket → gateway) rounds.
    const directMs = [];
    const proxiedMs = [];
    const relayedMs = [];
    for (let round = 0; round < 2; round += 1) {
      directMs.push(...await warmLatencies(() => direct(upstream.port, 'warm.test', upstream.ca.certPem)));
      proxiedMs.push(...await warmLatencies(() => tunnel(gw.port, 'warm.test', gw.caPem)));
      relayedMs.push(...await warmLatencies(() => tunnel(relay.port, 'warm.test', gw.caPem)));
    }
    // First request to a new host: CONNECT + leaf mint + client TLS + upstream TCP/TLS, against direct TCP/TLS.
    const firstProxied = [];
    const firstDirect = [];
    const firstRelayed = [];
    for (let i = 0; i < NEW_HOSTS; i += 1) {
      const [proxied, straight, relayed] = [newHosts[i], newHosts[NEW_HOSTS + i], localHosts[i]];
      firstProxied.push(await firstRequest(() => tunnel(gw.port, proxied, gw.caPem), proxied));
      firstDirect.push(await firstRequest(() => direct(upstream.port, straight, upstream.ca.certPem), straight));
      firstRelayed.push(await firstRequest(() => tunnel(relay.port, relayed, gw.caPem), relayed));
    }
    await stopAgent(relay.agent);
    relay = undefined;
    const startCost = await agentStartCost(socketPath);
    // Leaf mint in this process: cold (new hosts), warm (cache hits).
    const cache = new egress.LeafCache(await egress.RuntimeCa.generate('bench mint CA'));
    const cold = [];
    for (let i = 0; i < 50; i += 1) {
      const started = performance.now();
      await cache.context(`mint-${i}.test`, false);
      cold.push(performance.now() - started);
    }
    const warm = [];
    for (let i = 0; i < 1000; i += 1) {
      const started = performance.now();
      await cache.context(`mint-${i % 50}.test`, false);
      warm.push(performance.now() - started);
    }
    // RSS of the gateway process with 100 open tunnels, each with one request done (upstream connection open).
    const idleRss = (await gw.ask('rss')).rss;
    opened.push(...await openTunnels(TUNNELS, () => tunnel(gw.port, 'warm.test', gw.caPem), 'warm.test'));
    const rss = (await gw.ask('rss')).rss;

    const added50 = median(proxiedMs) - median(directMs);
    const added99 = percentile(proxiedMs, 99) - percentile(directMs, 99);
    const firstAdded = median(firstProxied) - median(firstDirect);
    const mib = (bytes) => `${(bytes / 1048576).toFixed(1)} MiB`;
    printTable(`Egress gateway: ${CLIENTS} concurrent clients × ${REQUESTS} GETs per round, 2 rounds, warm keep-alive; gateway in its own process`, ['measure', 'direct', 'through the gateway', 'added'], [
      ['request p50', ms(median(directMs)), ms(median(proxiedMs)), ms(added50)],
      ['request p99', ms(percentile(directMs, 99)), ms(percentile(proxiedMs, 99)), ms(added99)],
      [`first request to a new host (median of ${NEW_HOSTS}; route leaves minted at start)`, ms(median(firstDirect)), ms(median(firstProxied)), ms(firstAdded)],
      ['leaf mint cold / warm (median)', '', `${ms(median(cold))} / ${ms(median(warm))}`, ''],
      [`gateway RSS idle / ${TUNNELS} open tunnels`, '', `${mib(idleRss)} / ${mib(rss)}`, ''],
    ]);
    printTable('Egress, local path (--local-network proxy): the agent\'s relay on loopback TCP → the gateway\'s Unix socket, same run', ['measure', 'direct', 'gateway over TCP', 'local path', 'added by the local path (vs direct)'], [
      ['request p50', ms(median(directMs)), ms(median(proxiedMs)), ms(median(relayedMs)), ms(median(relayedMs) - median(directMs))],
      ['request p99', ms(percentile(directMs, 99)), ms(percentile(proxiedMs, 99)), ms(percentile(relayedMs, 99)), ms(percentile(relayedMs, 99) - percentile(directMs, 99))],
      ['first request to a new host (median)', ms(median(firstDirect)), ms(median(firstProxied)), ms(median(firstRelayed)), ms(median(firstRelayed) - median(firstDirect))],
      ['agent start to ready (median): without / with the relay', '', '', `${ms(startCost.plain)} / ${ms(startCost.relayed)}`, ms(startCost.relayed - startCost.plain)],
    ]);
    atMostMs('egress', 'added latency p50, warm, 10 clients', added50, 2);
    atMostMs('egress', 'added latency p99, warm, 10 clients', added99, 10);
    atMostMs('egress', 'first CONNECT over the upstream handshake', firstAdded, 15);
    atMostMs('egress', 'local path: added latency p50, warm, 10 clients', median(relayedMs) - median(directMs), 2);
    atMostMs('egress', 'local path: added latency p99, warm, 10 clients', percentile(relayedMs, 99) - percentile(directMs, 99), 10);
    atMostMs('egress', 'local path: first CONNECT over the upstream handshake', median(firstRelayed) - median(firstDirect), 15);
    atMostMs('egress', 'leaf mint cold', median(cold), 5);
    atMostMs('egress', 'leaf mint warm', median(warm), 0.05);
    quantityGoal('egress', `gateway RSS with ${TUNNELS} open tunnels`, rss / 1048576, { unit: 'MiB', atMost: 128 });
    for (const agent of opened.splice(0)) agent.destroy();
    await runFloodPart(gw);
    if (process.env.BENCH_EGRESS_BUILT !== '0') await runBuiltGatewayPart(egress, socketDir);
  } finally {
    if (relay) await stopAgent(relay.agent);
    for (const agent of opened) agent.destroy();
    const exited = new Promise((resolve) => gw.child.once('exit', resolve));
    gw.child.send('stop');
    setTimeout(() => gw.child.kill(), 2000).unref();
    await exited;
    upstream.server.closeAllConnections();
    await new Promise((resolve) => upstream.server.close(resolve));
    rmSync(dir, { recursive: true, force: true });
    rmSync(socketDir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await runEgressBench();
