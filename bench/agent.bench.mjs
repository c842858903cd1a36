// Sandbox agent benchmark (issue: foundation §4): exec round trip vs spawn-per-command, idle RSS, start time.
import { spawn } from 'node:child_process';
import { AgentClient } from '../dist/libs/agent-client/src/index.js';
import { rssMb, startAgent, stopAgent } from './lib/agent-process.mjs';
import { median, ms, percentile, printTable, timeCalls } from './lib/stats.mjs';

const CALLS = Number(process.env.BENCH_CALLS ?? 2000);
const STARTS = Number(process.env.BENCH_STARTS ?? 7);

function spawnTrue() {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['-c', 'true'], { stdio: 'ignore' });
    child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`bash exited ${code}`))));
    child.on('error', reject);
  });
}

async function healthyAfterStart() {
  const client = new AgentClient();
  const agent = await startAgent();
  // Ready = the first /health that answers 200 after spawn.
  for (;;) {
    try {
      await client.health(agent.url);
      break;
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
  }
  const elapsed = Number(process.hrtime.bigint() - agent.startedAt) / 1e6;
  client.close();
  return { agent, elapsed };
}

export async function runAgentBench() {
  const startTimes = [];
  const idleRss = [];
  for (let i = 0; i < STARTS; i++) {
    const { agent, elapsed } = await healthyAfterStart();
    startTimes.push(elapsed);
    await new Promise((resolve) => setTimeout(resolve, 300));
    idleRss.push(await rssMb(agent.child.pid));
    await stopAgent(agent);
  }

  const agent = await startAgent();
  const client = new AgentClient();
  const persistent = await timeCalls(() => client.exec(agent.url, agent.token, { command: 'true' }), CALLS, 200);
  const spawned = await timeCalls(spawnTrue, CALLS, 50);
  const rssAfter = await rssMb(agent.child.pid);
  client.close();
  await stopAgent(agent);

  const p50 = median(persistent);
  const spawnP50 = median(spawned);
  printTable(`Sandbox agent: POST /exec {"command":"true"} on loopback (${CALLS} calls each)`, ['mode', 'p50', 'p99', 'goal'], [
    ['persistent shell (agent, keep-alive HTTP)', ms(p50), ms(percentile(persistent, 99)), 'p50 ≤ 1 ms'],
    ['spawn per command (bash -c true)', ms(spawnP50), ms(percentile(spawned, 99)), ''],
    ['ratio spawn / persistent (p50)', `${(spawnP50 / p50).toFixed(1)}×`, '', '≥ 5×'],
  ]);
  printTable(`Sandbox agent: start and memory (${STARTS} starts)`, ['metric', 'median', 'max', 'goal'], [
    ['start → healthy', ms(median(startTimes)), ms(Math.max(...startTimes)), '≤ 400 ms'],
    ['idle RSS after start', `${median(idleRss).toFixed(1)} MB`, `${Math.max(...idleRss).toFixed(1)} MB`, '≤ 60 MB'],
    [`RSS after ${CALLS + 200} execs`, `${rssAfter.toFixed(1)} MB`, '', ''],
  ]);
}

if (import.meta.url === `file://${process.argv[1]}`) await runAgentBench();
