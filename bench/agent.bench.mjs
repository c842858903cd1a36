// Sandbox agent benchmark (issue 11): `POST /exec true` on TCP loopback and over the Unix socket against
// spawn-per-command (`bash -c true`), in alternating rounds; start → healthy and the idle footprint, and what
// being non-dumpable costs (issue 22 item 4: the prctl addon, native/non-dumpable, loaded and called before the shell starts).
import { spawn } from 'node:child_process';
import { AgentClient } from '../dist/libs/agent-client/src/index.js';
import { memoryMb, startAgent, stopAgent } from './lib/agent-process.mjs';
import { FOOTPRINT_IDLE_MS, footprints } from './lib/footprint.mjs';
import { imageEntrypoint } from './lib/image-entrypoint.mjs';
import { atMostMs, quantityGoal, ratioGoal } from './lib/goals.mjs';
import { alternatingRounds, p50WithSpread, p99Of, ratioMedian, ratioWithSpread, roundP50 } from './lib/rounds.mjs';
import { ms, printTable } from './lib/stats.mjs';

const CALLS = Number(process.env.BENCH_CALLS ?? 1000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const STARTS = Number(process.env.BENCH_STARTS ?? 9);
// Untimed calls per contestant first (docs/benchmarks.md, round 5: the agent keeps getting faster for ~4,000 calls).
const WARMUP = Number(process.env.BENCH_AGENT_WARMUP ?? 200);

function spawnTrue() {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['-c', 'true'], { stdio: 'ignore' });
    child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`bash exited ${code}`))));
    child.on('error', reject);
  });
}

const REPO = new URL('..', import.meta.url).pathname;

/** The sandbox image's ENTRYPOINT exactly as docker/Containerfile.sandbox writes it, after `node`, run from the checkout. */
const sandboxEntrypoint = () => imageEntrypoint('sandbox').map((arg) => arg.replace(/^\/opt\/sandbox-agent\//, REPO));

export async function runAgentBench() {
  const [idle, image, dumpable] = await footprints([{}, { entry: sandboxEntrypoint() }, { env: { SANDBOX_DUMPABLE: '1' } }], STARTS);

  const tcp = await startAgent();
  const unix = await startAgent({ socket: true });
  const client = new AgentClient();
  const [onTcp, onUnix, spawned] = await alternatingRounds([
    { label: 'persistent shell, keep-alive HTTP on TCP loopback', call: () => client.exec(tcp.url, tcp.token, { command: 'true' }) },
    { label: 'persistent shell, keep-alive HTTP on the Unix socket', call: () => client.exec(unix.url, unix.token, { command: 'true' }) },
    { label: 'spawn per command (bash -c true)', call: spawnTrue },
  ], { rounds: ROUNDS, calls: CALLS, warmup: WARMUP });
  const afterTcp = await memoryMb(tcp.child.pid);
  client.close();
  await stopAgent(tcp);
  await stopAgent(unix);

  printTable(`Sandbox agent: POST /exec {"command":"true"} (${WARMUP} warm-up calls each, then ${ROUNDS} alternating rounds × ${CALLS} calls; p50 = median of the round p50s, range in brackets)`,
    ['mode', 'p50 (range)', 'p99', 'spawn / this (range)', 'goal'], [
      [onTcp.label, p50WithSpread(onTcp), p99Of(onTcp), ratioWithSpread(spawned, onTcp), 'p50 ≤ 0.7 ms, ≥ 4×'],
      [onUnix.label, p50WithSpread(onUnix), p99Of(onUnix), ratioWithSpread(spawned, onUnix), 'p50 ≤ 0.7 ms, ≥ 4×'],
      [spawned.label, p50WithSpread(spawned), p99Of(spawned), '1', ''],
    ]);
  printTable(`Sandbox agent: start and idle footprint (median of ${STARTS} starts; memory ${FOOTPRINT_IDLE_MS} ms after healthy)`, ['metric', 'median', 'goal'], [
    ['start → healthy (first GET /health 200)', `${ms(idle.healthy.median)} (max ${ms(idle.healthy.max)})`, '≤ 150 ms'],
    ['idle RSS', `${idle.rss.toFixed(1)} MB`, '≤ 45 MB'],
    ['idle anonymous memory (smaps_rollup Anonymous)', `${idle.anonymous.toFixed(1)} MB`, '≤ 25 MB'],
    ['idle private memory (Private_Clean + Private_Dirty)', `${idle.private.toFixed(1)} MB`, ''],
    ['idle file-backed memory (RSS − anonymous: mostly the node binary, one page-cache copy for all its processes)', `${(idle.rss - idle.anonymous).toFixed(1)} MB`, ''],
    [`RSS / anonymous after ${ROUNDS * CALLS + WARMUP} execs (TCP agent)`, `${afterTcp.rss.toFixed(1)} / ${afterTcp.anonymous.toFixed(1)} MB`, ''],
    [`image ENTRYPOINT (node ${sandboxEntrypoint().join(' ').replace(REPO, '…/')}): start → healthy`, `${ms(image.healthy.median)} (max ${ms(image.healthy.max)})`, '≤ 100 ms'],
    ['image ENTRYPOINT: idle RSS / anonymous', `${image.rss.toFixed(1)} / ${image.anonymous.toFixed(1)} MB`, '≤ 45 MB (Node 20) / ≤ 25 MB (Node 24)'],
    ['non-dumpable (default) − dumpable (SANDBOX_DUMPABLE=1): start → healthy', `${ms(idle.healthy.median - dumpable.healthy.median)} (${ms(idle.healthy.median)} vs ${ms(dumpable.healthy.median)})`, ''],
    ['non-dumpable − dumpable: idle RSS / anonymous', `${(idle.rss - dumpable.rss).toFixed(1)} / ${(idle.anonymous - dumpable.anonymous).toFixed(1)} MB`, ''],
  ]);
  for (const [where, result] of [['TCP loopback', onTcp], ['Unix socket', onUnix]]) {
    atMostMs('agent', `POST /exec true p50, ${where}`, roundP50(result).median, 0.7);
    ratioGoal('agent', `spawn per command / persistent, ${where}`, ratioMedian(spawned, result), { atLeast: 4 });
  }
  atMostMs('agent', 'start → healthy', idle.healthy.median, 150);
  quantityGoal('agent', 'idle RSS', idle.rss, { atMost: 45, unit: 'MB' });
  quantityGoal('agent', 'idle anonymous memory', idle.anonymous, { atMost: 25, unit: 'MB' });
  // Issue 19 item 8: the ENTRYPOINT row's goals; RSS on Node 20, anonymous memory on the image's Node 24.
  atMostMs('agent', 'image ENTRYPOINT start → healthy', image.healthy.median, 100);
  if (process.versions.node.startsWith('20.')) quantityGoal('agent', 'image ENTRYPOINT idle RSS (Node 20)', image.rss, { atMost: 45, unit: 'MB' });
  else quantityGoal('agent', `image ENTRYPOINT idle anonymous (Node ${process.versions.node})`, image.anonymous, { atMost: 25, unit: 'MB' });
  return { tcp: roundP50(onTcp), unix: roundP50(onUnix), spawn: roundP50(spawned), idle };
}

if (import.meta.url === `file://${process.argv[1]}`) await runAgentBench();
