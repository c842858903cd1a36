// Operator benchmark (issue 21 item 6): a CliMcpInstance applied → Ready with a pool of 2, against the pod start
// it cannot avoid; the operator's API requests per instance per hour at steady state (watches only); 20 instances
// in one namespace: the operator's RSS and the time one spec change takes to be reconciled. Runs the BUILT
// operator process (`bin/sandbox-controller.js --operator`) against the fake API server (5 ms injected latency,
// CRDs, garbage collection) + kubelet simulator (2 s start) with real agents, and the stand-in Deployment
// controller of libs/testing. Loopback only. The operator runs with the controller image's Node flags
// (BENCH_OP_NODE_FLAGS overrides them); BENCH_OP_ONLY=ready|steady|many runs one table.
import { spawn } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { CUSTOM_RESOURCE_DEFINITIONS, DeploymentSimulator, SECRETS, builtAgentExists, startFakeCluster } from '../dist/libs/testing/src/index.js';
import { memoryMb } from './lib/agent-process.mjs';
import { untilCluster } from './lib/cluster.mjs';
import { imageEnv, imageNodeFlags } from './lib/image-entrypoint.mjs';
import { atMostMs, quantityGoal } from './lib/goals.mjs';
import { median, ms, printTable } from './lib/stats.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const NAMESPACE = 'bench';
const CRD = 'climcpinstances.cli-mcp.redhat.com';
const API_LATENCY_MS = 5;
const KUBELET_START_MS = 2000;
const READY_RUNS = Number(process.env.BENCH_OP_RUNS ?? 3);
const STEADY_INSTANCES = 3;
const SESSIONS_PER_INSTANCE = 2;
const ACTIVITY_INTERVAL_MS = 30_000;
const WINDOW_MS = Number(process.env.BENCH_OP_WINDOW_MS ?? 60_000);
const MANY = 20;
const CHANGES = 5;
const INSTANCE = 'cli-mcp.redhat.com/instance';

const sleep = (milliseconds) => new Promise((resolve) => setTimeout(resolve, milliseconds));
const condition = (cr, type) => (cr?.status?.conditions ?? []).find((c) => c.type === type);
const isReady = (pod) => JSON.stringify(pod?.status ?? {}).includes('"type":"Ready","status":"True"');

function startOperator(cluster) {
  // The controller image's ENTRYPOINT flags and glibc tunables (measured as shipped) unless BENCH_OP_NODE_FLAGS says
  // otherwise.
  const flags = imageNodeFlags('controller', 'BENCH_OP_NODE_FLAGS');
  const tunables = imageEnv('controller', 'GLIBC_TUNABLES');
  const child = spawn(process.execPath, [...flags, `${ROOT}bin/sandbox-controller.js`, '--operator', '--kubeconfig', cluster.kubeconfigPath, '--identity', 'bench-operator', '--address', '127.0.0.1:0'], {
    env: { ...process.env, ...(tunables ? { GLIBC_TUNABLES: tunables } : {}), WATCH_NAMESPACE: NAMESPACE, RELATED_IMAGE_SERVER: 'quay.io/example/cli-mcp-server:bench', RELATED_IMAGE_SANDBOX: 'quay.io/example/cli-mcp-sandbox:bench' },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const leading = new Promise((resolve) => createInterface({ input: child.stderr }).on('line', (line) => line.includes('"msg":"became leader"') && resolve()));
  return { child, leading, stop: () => new Promise((resolve) => (child.once('exit', resolve), child.kill('SIGTERM'))) };
}

function instance(cluster, name, spec) {
  cluster.api.create(SECRETS, NAMESPACE, { apiVersion: 'v1', kind: 'Secret', metadata: { name: `cli-mcp-${name}-kubeconfig` }, stringData: { kubeconfig: readFileSync(cluster.kubeconfigPath, 'utf8') } });
  const def = cluster.registry.find('cli-mcp.redhat.com', 'v1alpha1', 'climcpinstances');
  cluster.api.create(def, NAMESPACE, { apiVersion: 'cli-mcp.redhat.com/v1alpha1', kind: 'CliMcpInstance', metadata: { name }, spec });
  return def;
}

/** Table 1: CR applied → Ready=True with a pool of 2, next to the pool pods' own start. */
async function appliedToReady(cluster) {
  const rows = [];
  const overheads = [];
  for (let run = 0; run < READY_RUNS; run++) {
    const name = `ready-${run}`;
    const podReady = new Map();
    const podAdded = new Map();
    const off = cluster.store.subscribe((event) => {
      if (event.resource !== 'pods' || event.object.metadata.labels?.[INSTANCE] !== name) return;
      const key = event.object.metadata.name;
      if (!podAdded.has(key)) podAdded.set(key, performance.now());
      if (isReady(event.object) && !podReady.has(key)) podReady.set(key, performance.now());
    });
    const applied = performance.now();
    instance(cluster, name, { sandbox: { warmPoolSize: 2 } });
    await untilCluster(cluster, () => condition(cluster.store.get(CRD, NAMESPACE, name), 'Ready')?.status === 'True');
    const ready = performance.now() - applied;
    off();
    const podStart = Math.max(...[...podReady].map(([key, at]) => at - podAdded.get(key)));
    overheads.push(ready - podStart);
    rows.push([name, ms(ready), ms(podStart), ms(ready - podStart)]);
  }
  printTable(
    `CliMcpInstance applied → Ready=True with a warm pool of 2 (${API_LATENCY_MS} ms API latency, ${KUBELET_START_MS / 1000} s kubelet start, real agents)`,
    ['instance', 'applied → Ready', 'pool pod start (slowest)', 'operator overhead'],
    [...rows, ['median', '', '', ms(median(overheads))]],
  );
  atMostMs('operator', 'CR applied → Ready (pool of 2) beyond the pod start, median', median(overheads), 2000);
}

/** Table 2: requests per instance per hour at rest, with sessions stamping activity as servers do. */
async function steadyState(cluster) {
  const sessions = [];
  cluster.kubelet.holdPending((pod) => String(pod.metadata.name).includes('-session-'));
  for (let i = 0; i < STEADY_INSTANCES; i++) {
    const name = `steady-${i}`;
    instance(cluster, name, { sandbox: { warmPoolSize: 1 } });
    for (let s = 0; s < SESSIONS_PER_INSTANCE; s++) sessions.push({ name: `${name}-session-${s}`, instance: name });
  }
  await untilCluster(cluster, () => [...Array(STEADY_INSTANCES).keys()].every((i) => condition(cluster.store.get(CRD, NAMESPACE, `steady-${i}`), 'Ready')?.status === 'True'), 120_000);
  const stamp = () => new Date().toISOString().replace(/\.\d+Z$/, 'Z');
  for (const s of sessions) {
    cluster.api.create(cluster.registry.find('', 'v1', 'pods'), NAMESPACE, {
      apiVersion: 'v1', kind: 'Pod',
      metadata: { name: s.name, labels: { [INSTANCE]: s.instance, 'cli-mcp.redhat.com/component': 'sandbox', 'cli-mcp.redhat.com/session-id': s.name }, annotations: { 'cli-mcp.redhat.com/last-activity': stamp(), 'cli-mcp.redhat.com/created-at': stamp() } },
      spec: { containers: [{ name: 'sandbox', image: 'x' }] },
    });
  }
  await sleep(3000);
  const from = cluster.requests.count();
  const started = Date.now();
  const timer = setInterval(() => {
    const s = sessions[Math.floor(Math.random() * sessions.length)];
    cluster.api.patch(cluster.registry.find('', 'v1', 'pods'), NAMESPACE, s.name, 'merge', { metadata: { annotations: { 'cli-mcp.redhat.com/last-activity': stamp() } } });
  }, ACTIVITY_INTERVAL_MS / sessions.length);
  await sleep(WINDOW_MS);
  clearInterval(timer);
  const window = Date.now() - started;
  const entries = cluster.requests.entries().slice(from);
  const lease = entries.filter((r) => r.resource === 'leases');
  const other = entries.filter((r) => r.resource !== 'leases');
  const perHour = (n) => (n * 3_600_000) / window;
  const byKind = {};
  for (const r of other) byKind[`${r.verb} ${r.resource}`] = (byKind[`${r.verb} ${r.resource}`] ?? 0) + 1;
  // CRs, pods, Secrets, EndpointSlices, NetworkPolicies and the seven other child kinds (docs/operator.md "Replicas, failover, API cost").
  const watches = 12;
  printTable(
    `Operator API requests at rest: ${STEADY_INSTANCES} Ready instances (pool of 1 each), ${SESSIONS_PER_INSTANCE} sessions each stamping activity every ${ACTIVITY_INTERVAL_MS / 1000} s — measured over ${(window / 1000).toFixed(0)} s, extrapolated to 1 h`,
    ['requests', 'in window', 'per hour', 'per instance per hour'],
    [
      ...Object.entries(byKind).sort().map(([kind, n]) => [kind, String(n), perHour(n).toFixed(0), (perHour(n) / STEADY_INSTANCES).toFixed(1)]),
      ['all but the Lease', String(other.length), perHour(other.length).toFixed(0), (perHour(other.length) / STEADY_INSTANCES).toFixed(1)],
      [`watch re-opens at a real API server's timeout (${watches} watches, 30–60 min each; the fake keeps them open)`, '—', `≤ ${2 * watches}`, `≤ ${((2 * watches) / STEADY_INSTANCES).toFixed(1)} (shared by every instance)`],
      ['leader Lease renewals (one per operator, not per instance)', String(lease.length), perHour(lease.length).toFixed(0), '—'],
    ],
  );
  quantityGoal('operator', 'API requests per instance per hour at rest (watch re-opens included)', (perHour(other.length) + 2 * watches) / STEADY_INSTANCES, { atMost: 60, unit: 'requests' });
}

/** Table 3: 20 instances in one namespace — the operator's RSS and one change reconciled. */
async function manyInstances(cluster, operator) {
  for (let i = 0; i < MANY; i++) instance(cluster, `many-${i}`, { sandbox: { warmPoolSize: 0 } });
  const all = () => [...Array(MANY).keys()].map((i) => cluster.store.get(CRD, NAMESPACE, `many-${i}`));
  const settle = performance.now();
  const idle = (await memoryMb(operator.child.pid)).rss;
  await untilCluster(cluster, () => all().every((cr) => condition(cr, 'Ready')?.status === 'True'), 180_000);
  const settled = performance.now() - settle;
  await sleep(2000);
  const rss = (await memoryMb(operator.child.pid)).rss;
  const changes = [];
  for (let n = 0; n < CHANGES; n++) {
    const name = `many-${n * 3}`;
    const def = cluster.registry.find('cli-mcp.redhat.com', 'v1alpha1', 'climcpinstances');
    const started = performance.now();
    const patched = cluster.api.patch(def, NAMESPACE, name, 'merge', { spec: { replicas: 2 } });
    const generation = patched.metadata.generation;
    await untilCluster(cluster, () => {
      const cr = cluster.store.get(CRD, NAMESPACE, name);
      const deployment = cluster.store.get('deployments', NAMESPACE, `cli-mcp-${name}-server`);
      return cr?.status?.observedGeneration === generation && deployment?.spec?.replicas === 2;
    });
    changes.push(performance.now() - started);
  }
  printTable(
    `${MANY} instances in one namespace (no pool each), one operator (node ${imageNodeFlags('controller', 'BENCH_OP_NODE_FLAGS').join(' ') || '(no flags)'}: the image's unless BENCH_OP_NODE_FLAGS)`,
    ['metric', 'figure', 'goal'],
    [
      ['operator RSS before the instances', `${idle.toFixed(1)} MB`, 'report'],
      ['all 20 applied → all Ready', ms(settled), 'report'],
      ['operator RSS with 20 instances', `${rss.toFixed(1)} MB`, '≤ 120 MB'],
      [`one spec change (replicas 1 → 2) → Deployment updated and status observed, median / max of ${CHANGES}`, `${ms(median(changes))} / ${ms(Math.max(...changes))}`, '≤ 1 s'],
    ],
  );
  quantityGoal('operator', `operator RSS with ${MANY} instances`, rss, { atMost: 120, unit: 'MB' });
  atMostMs('operator', `one change to one of ${MANY} instances reconciled, max`, Math.max(...changes), 1000);
}

/** A fresh fake cluster with the CRD, the Deployment stand-in and a leading operator; `run` gets them. */
async function withOperator(run) {
  const cluster = await startFakeCluster({
    namespace: NAMESPACE,
    kubelet: { speedup: 20, schedulingDelayMs: KUBELET_START_MS, maxTerminationGraceMs: 2_000, stopGraceMs: 1_000, pendingForever: (pod) => pod.metadata.labels?.['cli-mcp.redhat.com/component'] === 'server' },
  });
  const deployments = new DeploymentSimulator(cluster, NAMESPACE);
  let operator;
  try {
    cluster.api.create(CUSTOM_RESOURCE_DEFINITIONS, '', parse(readFileSync(`${ROOT}deploy/operator/crd.yaml`, 'utf8')));
    await cluster.waitFor('customresourcedefinitions', undefined, CRD, (o) => JSON.stringify(o?.status ?? {}).includes('"type":"Established","status":"True"'));
    cluster.faults.add({ pathPattern: /^\/(api|apis)\//, delayMs: API_LATENCY_MS });
    operator = startOperator(cluster);
    await operator.leading;
    await run(cluster, operator);
  } finally {
    await operator?.stop();
    deployments.stop();
    await cluster.stop();
  }
}

export async function runOperatorBench() {
  if (!builtAgentExists()) {
    console.log('\nOperator benchmark skipped: the sandbox agent is not built (npm run build).');
    return;
  }
  const only = process.env.BENCH_OP_ONLY;
  await withOperator(async (cluster) => {
    if (!only || only === 'ready') await appliedToReady(cluster);
    if (!only || only === 'steady') await steadyState(cluster);
  });
  // Its own cluster and operator process: the RSS is that of exactly 20 instances.
  if (!only || only === 'many') await withOperator((cluster, operator) => manyInstances(cluster, operator));
}

if (import.meta.url === `file://${process.argv[1]}`) await runOperatorBench();
