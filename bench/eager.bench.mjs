// Eager acquisition benchmark (C-MCP-13): the first `bash` of a session issued 2 s after its `initialize` (a
// model's first think), with and without --eager-acquire, on a cold local backend, a cold Kubernetes backend
// (fake cluster, 2 s kubelet start) and a Kubernetes backend with a warm pool kept by the BUILT sandbox controller.
// Goal: with eager acquisition the first command costs what a warm one costs. For the cold Kubernetes case it
// also splits the pod's start (fake cluster events + the agent's own `listening` line) to show where the time goes.
// Runs the BUILT server (and controller) binaries; loopback only; bounded.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { createInterface } from 'node:readline';
import { SECRETS, builtAgentExists, startFakeCluster } from '../dist/libs/testing/src/index.js';
import { callBash, closeConnections, getText, initialize, startServer } from './lib/server-process.mjs';
import { untilCluster } from './lib/cluster.mjs';
import { atMostMs } from './lib/goals.mjs';
import { median, ms, printTable } from './lib/stats.mjs';

const SAMPLES = Number(process.env.BENCH_EAGER_SAMPLES ?? 4);
const THINK_MS = 2000;
const KUBELET_START_MS = 2000;
const SPEEDUP = 20;
const POOL_SIZE = 2;
const NAMESPACE = 'cli-mcp';
const SESSION_LABEL = 'cli-mcp.redhat.com/session-id';
const CONTROLLER_BIN = new URL('../bin/sandbox-controller.js', import.meta.url).pathname;

const sleep = (msec) => new Promise((resolve) => setTimeout(resolve, msec));
const isReady = (pod) => JSON.stringify(pod?.status ?? {}).includes('"type":"Ready","status":"True"');

/**
 * Per sample: initialize a new session, think 2 s, time its first command, then a warm one. `beforeSample` waits
 * for the cluster's state a sample needs (a full pool); `marks` are the client's instants of each sample.
 */
async function firstAfterThink(args, prefix, beforeSample = async () => undefined) {
  const server = await startServer(args);
  const first = [];
  const warm = [];
  const marks = [];
  try {
    for (let i = 0; i < SAMPLES; i++) {
      await beforeSample();
      const sessionId = `${prefix}-${i}`;
      const mark = { sessionId, initialize: performance.now() };
      await initialize(server.url, sessionId);
      await sleep(THINK_MS);
      mark.call = performance.now();
      await callBash(server.url, sessionId, 'true');
      mark.done = performance.now();
      first.push(mark.done - mark.call);
      marks.push(mark);
      const t = performance.now();
      await callBash(server.url, sessionId, 'true');
      warm.push(performance.now() - t);
    }
    const metrics = await getText(server.url.replace(/\/mcp$/, '/metrics'));
    const count = (path) => Number(new RegExp(`cli_mcp_session_acquire_seconds_count\\{path="${path}"\\} (\\d+)`).exec(metrics)?.[1] ?? 0);
    return { first: median(first), warm: median(warm), max: Math.max(...first), marks, claims: count('claim'), creates: count('create') };
  } finally {
    await server.stop();
  }
}

/**
 * When each session pod was created, bound to the node (after the scheduling delay), started, when its agent
 * logged `listening`, and when it turned Ready (the readiness probe): from the fake cluster, in this process.
 */
function podTimeline(cluster, agentListening) {
  const byPod = new Map();
  const off = cluster.store.subscribe(({ resource, object }) => {
    const session = object.metadata.labels?.[SESSION_LABEL];
    if (resource !== 'pods' || !session) return;
    const now = performance.now();
    const entry = byPod.get(object.metadata.name) ?? { session, created: now };
    byPod.set(object.metadata.name, entry);
    if (object.spec?.nodeName) entry.bound ??= now;
    if (object.status?.containerStatuses?.some((s) => s.state?.running)) entry.started ??= now;
    if (isReady(object)) entry.ready ??= now;
  });
  const of = (sessionId) => {
    for (const [name, entry] of byPod) if (entry.session === sessionId) return { ...entry, listening: agentListening.get(`${NAMESPACE}/${name}`) };
    return undefined;
  };
  return { of, off };
}

async function fakeCluster() {
  const agentListening = new Map();
  const cluster = await startFakeCluster({
    namespace: NAMESPACE,
    kubelet: {
      speedup: SPEEDUP, schedulingDelayMs: KUBELET_START_MS, maxTerminationGraceMs: 2_000, stopGraceMs: 1_000,
      onAgentOutput: (pod, _stream, text) => {
        if (!agentListening.has(pod) && text.includes('"msg":"listening"')) agentListening.set(pod, performance.now());
      },
    },
  });
  cluster.api.create(SECRETS, NAMESPACE, {
    apiVersion: 'v1', kind: 'Secret', metadata: { name: 'bench-kubeconfig' }, stringData: { kubeconfig: 'apiVersion: v1\nkind: Config\n' },
  });
  const dir = mkdtempSync(join(tmpdir(), 'eager-bench-'));
  const keyFile = join(dir, 'hmac.key');
  writeFileSync(keyFile, `${'cd'.repeat(32)}\n`, { mode: 0o600 });
  // The flags the server and the controller share (the controller's pool pods must be the server's to claim).
  const shared = [
    '--kubeconfig', cluster.kubeconfigPath, '--namespace', NAMESPACE, '--instance-name', 'bench', '--sandbox-image', 'bench/sandbox:latest',
    '--kubeconfig-secret', 'bench-kubeconfig', '--sandbox-service-account', 'bench-sandbox', '--sandbox-termination-grace-period', '1',
  ];
  return {
    cluster,
    agentListening,
    shared,
    serverArgs: ['--backend', 'kubernetes', ...shared, '--hmac-key-file', keyFile],
    stop: async () => {
      await cluster.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The BUILT sandbox controller keeping a warm pool of `size`; resolves once it leads. */
async function startController(shared, size) {
  const env = Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith('CLI_MCP_')));
  const child = spawn(process.execPath, [CONTROLLER_BIN, '--address', '127.0.0.1:0', ...shared, '--warm-pool-size', String(size), '--identity', 'bench-ctl'], {
    env, stdio: ['ignore', 'ignore', 'pipe'],
  });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  await new Promise((resolve, reject) => {
    createInterface({ input: child.stderr }).on('line', (line) => {
      if (line.includes('"msg":"became leader"')) resolve();
    });
    void exited.then((code) => reject(new Error(`controller exited with ${code}`)));
  });
  return {
    async stop() {
      if (child.exitCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}

const readyPool = (cluster) => cluster.store.list('pods', NAMESPACE).filter((p) => !p.metadata.labels?.[SESSION_LABEL] && !p.metadata.deletionTimestamp && isReady(p));

/** Cold pods: the first command's wait split by the pod's start, per sample, then the medians. */
function coldBreakdown(result, timeline) {
  const parts = result.marks.map((mark) => {
    const pod = timeline.of(mark.sessionId);
    return {
      created: pod.created - mark.initialize,
      scheduling: pod.bound - pod.created,
      containerStart: pod.started - pod.bound,
      agentStart: pod.listening - pod.started,
      probe: pod.ready - pod.listening,
      readyAfterCall: pod.ready - mark.call,
      afterReady: mark.done - Math.max(mark.call, pod.ready),
    };
  });
  const at = (key) => ms(median(parts.map((p) => p[key])));
  return [
    ['initialize sent → session pod created (eager acquisition started)', at('created')],
    [`pod created → bound to the node (kubelet scheduling delay, ${KUBELET_START_MS / 1000} s configured)`, at('scheduling')],
    ['bound → container running (sandbox dirs, agent process spawned)', at('containerStart')],
    ['container running → agent listening (the real agent\'s Node start)', at('agentStart')],
    [`agent listening → pod Ready (readiness probe: first after ${1000 / SPEEDUP} ms, then every ${2000 / SPEEDUP} ms)`, at('probe')],
    ['pod Ready − first `bash` sent (what the command had to wait for)', at('readyAfterCall')],
    ['first `bash` done − max(sent, pod Ready): the server after the pod is Ready', at('afterReady')],
    ['warm `bash` (for comparison)', ms(result.warm)],
  ];
}

export async function runEagerBench() {
  const rows = [];
  // Backend acquisitions the server counted: one per session is the single flight holding (C-K8S-4, C-MCP-13).
  const acquired = (result) => [result.claims && `${result.claims} claim`, result.creates && `${result.creates} create`].filter(Boolean).join(' + ');
  const row = (name, result) => {
    if (name.includes('(eager)')) atMostMs('eager', `first − warm bash p50, ${name.replace(' (eager)', '')}`, result.first - result.warm, 10);
    return [name, ms(result.first), ms(result.max), ms(result.warm), ms(result.first - result.warm), acquired(result)];
  };
  for (const eager of [false, true]) {
    rows.push(row(`local, cold (${eager ? 'eager' : 'no eager'})`, await firstAfterThink([`--eager-acquire=${eager}`], `eager-local-${eager}`)));
  }
  let breakdown;
  if (builtAgentExists()) {
    for (const eager of [false, true]) {
      const kube = await fakeCluster();
      const timeline = podTimeline(kube.cluster, kube.agentListening);
      try {
        const result = await firstAfterThink([...kube.serverArgs, `--eager-acquire=${eager}`], `eager-kube-${eager}`);
        rows.push(row(`kubernetes, cold, ${KUBELET_START_MS / 1000} s kubelet start (${eager ? 'eager' : 'no eager'})`, result));
        if (eager) breakdown = coldBreakdown(result, timeline);
      } finally {
        timeline.off();
        await kube.stop();
      }
    }
    for (const eager of [false, true]) {
      const kube = await fakeCluster();
      const controller = await startController(kube.shared, POOL_SIZE);
      try {
        // Each session finds the pool full again (the refill of the previous claim is Ready): a pool hit.
        const full = () => untilCluster(kube.cluster, () => readyPool(kube.cluster).length >= POOL_SIZE);
        const result = await firstAfterThink([...kube.serverArgs, `--eager-acquire=${eager}`], `eager-pool-${eager}`, full);
        rows.push(row(`kubernetes, warm pool of ${POOL_SIZE} (built controller) (${eager ? 'eager' : 'no eager'})`, result));
      } finally {
        await controller.stop();
        await kube.stop();
      }
    }
  }
  closeConnections();
  printTable(
    `Eager acquisition: first bash of a session ${THINK_MS / 1000} s after initialize (${SAMPLES} sessions each; goal with eager: first − warm ≤ 10 ms)`,
    ['backend', 'first p50', 'first max', 'warm p50', 'first − warm', `acquisitions (${SAMPLES} sessions)`],
    rows,
  );
  if (breakdown) printTable(`Cold Kubernetes pod with eager acquisition: where the first command's wait goes (p50 of ${SAMPLES})`, ['span', 'p50'], breakdown);
}

if (import.meta.url === `file://${process.argv[1]}`) await runEagerBench();
