// Eager acquisition benchmark (C-MCP-13): the first `bash` of a session issued 2 s after its `initialize` (a
// model's first think), with and without --eager-acquire, on a cold local backend and a cold Kubernetes backend
// (fake cluster, 2 s kubelet start). Goal: with eager acquisition the first command costs what a warm one costs.
// Runs the BUILT server binary; loopback only; bounded.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SECRETS, builtAgentExists, startFakeCluster } from '../dist/libs/testing/src/index.js';
import { callBash, closeConnections, initialize, startServer } from './lib/server-process.mjs';
import { median, ms, printTable } from './lib/stats.mjs';

const SAMPLES = Number(process.env.BENCH_EAGER_SAMPLES ?? 4);
const THINK_MS = 2000;
const KUBELET_START_MS = 2000;
const NAMESPACE = 'cli-mcp';

const sleep = (msec) => new Promise((resolve) => setTimeout(resolve, msec));
const timed = async (fn) => {
  const t = process.hrtime.bigint();
  await fn();
  return Number(process.hrtime.bigint() - t) / 1e6;
};

/** Per sample: initialize a new session, think 2 s, time its first command, then a warm one. */
async function firstAfterThink(args, prefix) {
  const server = await startServer(args);
  const first = [];
  const warm = [];
  try {
    for (let i = 0; i < SAMPLES; i++) {
      const sessionId = `${prefix}-${i}`;
      await initialize(server.url, sessionId);
      await sleep(THINK_MS);
      first.push(await timed(() => callBash(server.url, sessionId, 'true')));
      warm.push(await timed(() => callBash(server.url, sessionId, 'true')));
    }
  } finally {
    await server.stop();
  }
  return { first: median(first), warm: median(warm), max: Math.max(...first) };
}

async function kubernetesArgs() {
  const cluster = await startFakeCluster({
    namespace: NAMESPACE,
    kubelet: { speedup: 20, schedulingDelayMs: KUBELET_START_MS, maxTerminationGraceMs: 2_000, stopGraceMs: 1_000 },
  });
  cluster.api.create(SECRETS, NAMESPACE, {
    apiVersion: 'v1', kind: 'Secret', metadata: { name: 'bench-kubeconfig' }, stringData: { kubeconfig: 'apiVersion: v1\nkind: Config\n' },
  });
  const dir = mkdtempSync(join(tmpdir(), 'eager-bench-'));
  const keyFile = join(dir, 'hmac.key');
  writeFileSync(keyFile, `${'cd'.repeat(32)}\n`, { mode: 0o600 });
  const args = [
    '--backend', 'kubernetes', '--kubeconfig', cluster.kubeconfigPath, '--namespace', NAMESPACE, '--instance-name', 'bench',
    '--sandbox-image', 'bench/sandbox:latest', '--kubeconfig-secret', 'bench-kubeconfig', '--sandbox-service-account', 'bench-sandbox',
    '--hmac-key-file', keyFile, '--sandbox-termination-grace-period', '1',
  ];
  return { args, stop: async () => { await cluster.stop(); rmSync(dir, { recursive: true, force: true }); } };
}

export async function runEagerBench() {
  const rows = [];
  for (const eager of [false, true]) {
    const local = await firstAfterThink([`--eager-acquire=${eager}`], `eager-local-${eager}`);
    rows.push([`local, cold (${eager ? 'eager' : 'no eager'})`, ms(local.first), ms(local.max), ms(local.warm), ms(local.first - local.warm)]);
  }
  if (builtAgentExists()) {
    for (const eager of [false, true]) {
      const kube = await kubernetesArgs();
      try {
        const result = await firstAfterThink([...kube.args, `--eager-acquire=${eager}`], `eager-kube-${eager}`);
        rows.push([`kubernetes, cold, ${KUBELET_START_MS / 1000} s kubelet start (${eager ? 'eager' : 'no eager'})`, ms(result.first), ms(result.max), ms(result.warm), ms(result.first - result.warm)]);
      } finally {
        await kube.stop();
      }
    }
  }
  closeConnections();
  printTable(
    `Eager acquisition: first bash of a session ${THINK_MS / 1000} s after initialize (${SAMPLES} sessions each; goal with eager: first − warm ≤ 10 ms)`,
    ['backend', 'first p50', 'first max', 'warm p50', 'first − warm'],
    rows,
  );
}

if (import.meta.url === `file://${process.argv[1]}`) await runEagerBench();
