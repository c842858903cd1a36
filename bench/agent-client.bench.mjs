// Agent client benchmark (issue 11): what the server's own HTTP client costs per `POST /exec true` against a real
// agent — CPU of this process (the client; the agent is another process) and latency, on TCP loopback and on the
// Unix socket. Run it on two builds (A/B) to compare clients.
import { performance } from 'node:perf_hooks';
import { AgentClient } from '../dist/libs/agent-client/src/index.js';
import { startAgent, stopAgent } from './lib/agent-process.mjs';
import { ms, percentile, printTable } from './lib/stats.mjs';

const CALLS = Number(process.env.BENCH_CALLS ?? 3000);
const WARMUP = 300;

async function measure(client, agent) {
  const call = () => client.exec(agent.url, agent.token, { command: 'true' });
  for (let i = 0; i < WARMUP; i += 1) await call();
  const latencies = [];
  const cpuBefore = process.cpuUsage();
  for (let i = 0; i < CALLS; i += 1) {
    const start = performance.now();
    await call();
    latencies.push(performance.now() - start);
  }
  const cpu = process.cpuUsage(cpuBefore);
  return { cpuUs: (cpu.user + cpu.system) / CALLS, p50: percentile(latencies, 50), p99: percentile(latencies, 99) };
}

export async function runAgentClientBench() {
  const tcp = await startAgent();
  const unix = await startAgent({ socket: true });
  const client = new AgentClient();
  const rows = [];
  for (const [label, agent] of [['TCP loopback', tcp], ['Unix socket', unix]]) {
    const { cpuUs, p50, p99 } = await measure(client, agent);
    rows.push([label, `${cpuUs.toFixed(0)} µs`, ms(p50), ms(p99)]);
  }
  client.close();
  await stopAgent(tcp);
  await stopAgent(unix);
  printTable(`Agent client: POST /exec {"command":"true"}, ${CALLS} sequential calls after ${WARMUP} warm-up (client process CPU per call)`,
    ['transport', 'client CPU / call', 'p50', 'p99'], rows);
  return rows;
}

if (import.meta.url === `file://${process.argv[1]}`) await runAgentClientBench();
