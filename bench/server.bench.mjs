// MCP server benchmark (issue: server §Benchmark): server overhead over the agent, throughput with 20 sessions,
// first command of a new session with and without a warm pool. Local backend, loopback only, bounded in time.
import { AgentClient } from '../dist/libs/agent-client/src/index.js';
import { startAgent, stopAgent } from './lib/agent-process.mjs';
import { atMostMs, quantityGoal } from './lib/goals.mjs';
import { alternatingRounds, p50WithSpread, roundP50 } from './lib/rounds.mjs';
import { callBash, closeConnections, startServer } from './lib/server-process.mjs';
import { median, ms, percentile, printTable, timeCalls } from './lib/stats.mjs';

const CALLS = Number(process.env.BENCH_CALLS ?? 2000);
const LOAD_SECONDS = Number(process.env.BENCH_LOAD_SECONDS ?? 10);
const SESSIONS = 20;
const OVERHEAD_ROUNDS = 5;
const FIRST_SAMPLES = Number(process.env.BENCH_FIRST_SAMPLES ?? 6);

/** A warm session's call through the server (its agent is started once, outside the timing). */
async function warmCalls(args) {
  const server = await startServer(args);
  await callBash(server.url, 'bench-warm', 'true');
  const calls = await timeCalls(() => callBash(server.url, 'bench-warm', 'true'), CALLS, 200);
  await server.stop();
  return calls;
}

/**
 * The agent alone and the whole call through the server, in alternating rounds: the overhead is a difference of
 * two figures, and measured one after the other it carried whatever the host did in between (issue 11, round 6).
 */
async function overhead() {
  const agentProcess = await startAgent();
  const client = new AgentClient();
  const server = await startServer(['--local-network', 'host']);
  try {
    await callBash(server.url, 'bench-warm', 'true');
    const [agentOnly, endToEnd] = await alternatingRounds([
      { label: 'agent only', call: () => client.exec(agentProcess.url, agentProcess.token, { command: 'true' }) },
      { label: 'end to end', call: () => callBash(server.url, 'bench-warm', 'true') },
    ], { rounds: OVERHEAD_ROUNDS, calls: Math.ceil(CALLS / OVERHEAD_ROUNDS), warmup: 200 });
    return { agentOnly, endToEnd };
  } finally {
    client.close();
    await stopAgent(agentProcess);
    await server.stop();
  }
}

/** Median over rounds of (end-to-end p50 − agent p50) in the same round. */
function overheadP50(agentOnly, endToEnd) {
  return median(endToEnd.rounds.map((durations, i) => median(durations) - median(agentOnly.rounds[i])));
}

async function throughput() {
  const server = await startServer(['--max-sessions', String(SESSIONS + 4)]);
  const ids = Array.from({ length: SESSIONS }, (_, i) => `bench-load-${i}`);
  await Promise.all(ids.map((id) => callBash(server.url, id, 'true')));
  const latencies = [];
  const deadline = Date.now() + LOAD_SECONDS * 1000;
  const start = process.hrtime.bigint();
  await Promise.all(ids.map(async (id) => {
    while (Date.now() < deadline) {
      const t = process.hrtime.bigint();
      await callBash(server.url, id, 'true');
      latencies.push(Number(process.hrtime.bigint() - t) / 1e6);
    }
  }));
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  await server.stop();
  return { calls: latencies.length, perSecond: latencies.length / seconds, p50: median(latencies), p99: percentile(latencies, 99) };
}

async function firstCommand(args) {
  const server = await startServer(args);
  const samples = [];
  for (let i = 0; i < FIRST_SAMPLES; i++) {
    // Let a warm pool refill between samples (it refills right after each claim).
    await new Promise((resolve) => setTimeout(resolve, 1500));
    const t = process.hrtime.bigint();
    await callBash(server.url, `bench-first-${i}`, 'true');
    samples.push(Number(process.hrtime.bigint() - t) / 1e6);
  }
  await server.stop();
  return samples;
}

export async function runServerBench() {
  const { agentOnly, endToEnd } = await overhead();
  const load = await throughput();
  const cold = await firstCommand(['--local-network', 'host']);
  const coldIsolated = await firstCommand(['--local-network', 'isolated']);
  const warm = await firstCommand(['--warm-pool-size', '2']);
  const warmIsolated = await warmCalls(['--local-network', 'isolated']);
  closeConnections();

  const agentP99 = percentile(agentOnly.all, 99);
  const e2eP50 = roundP50(endToEnd).median;
  const e2eP99 = percentile(endToEnd.all, 99);
  const overheadMs = overheadP50(agentOnly, endToEnd);
  printTable(`MCP server: tools/call bash {"command":"true"} on a warm session, HTTP, local backend (${OVERHEAD_ROUNDS} alternating rounds × ${Math.ceil(CALLS / OVERHEAD_ROUNDS)} calls; p50 = median of the round p50s)`, ['path', 'p50 (range)', 'p99', 'goal'], [
    ['agent only (POST /exec, TCP)', p50WithSpread(agentOnly), ms(agentP99), ''],
    ['end to end (POST /mcp → agent on its Unix socket)', p50WithSpread(endToEnd), ms(e2eP99), ''],
    ['server overhead (difference, per round)', ms(overheadMs), ms(e2eP99 - agentP99), '≤ 1 ms p50, ≤ 5 ms p99'],
  ]);
  printTable(`MCP server: warm call, --local-network isolated vs host (${CALLS} calls each)`, ['network', 'p50', 'p99', 'goal'], [
    ['host (Unix-socket agent since issue 11; TCP loopback before)', ms(e2eP50), ms(e2eP99), ''],
    ['isolated (+ slirp4netns; Unix-socket agent)', ms(median(warmIsolated)), ms(percentile(warmIsolated, 99)), 'nothing measurable added'],
  ]);
  printTable(`MCP server: ${SESSIONS} concurrent sessions for ${LOAD_SECONDS} s`, ['calls', 'calls/s', 'p50', 'p99'], [
    [String(load.calls), load.perSecond.toFixed(0), ms(load.p50), ms(load.p99)],
  ]);
  printTable(`MCP server: first command of a new session (${FIRST_SAMPLES} sessions each)`, ['sandbox', 'p50', 'max'], [
    ['cold, --local-network host (agent process started on demand)', ms(median(cold)), ms(Math.max(...cold))],
    ['cold, --local-network isolated (+ slirp4netns, Unix socket)', ms(median(coldIsolated)), ms(Math.max(...coldIsolated))],
    ['isolation cost on a cold start (difference of p50)', ms(median(coldIsolated) - median(cold)), ''],
    ['warm pool (--warm-pool-size 2, claimed with /assign)', ms(median(warm)), ms(Math.max(...warm))],
  ]);
  atMostMs('server', 'server overhead over the agent, p50', overheadMs, 1);
  atMostMs('server', 'server overhead over the agent, p99', e2eP99 - agentP99, 5);
  quantityGoal('server', `${SESSIONS} sessions, HTTP`, load.perSecond, { atLeast: 600, unit: 'calls/s', digits: 0 });
}

if (import.meta.url === `file://${process.argv[1]}`) await runServerBench();
