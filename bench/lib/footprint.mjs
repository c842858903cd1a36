// Start → healthy and the idle memory of agent-like processes, sampled interleaved (rung A, B, C, then C, B, A…)
// so machine load lands on every variant alike.
import { AgentClient } from '../../dist/libs/agent-client/src/index.js';
import { memoryMb, startAgent, stopAgent } from './agent-process.mjs';
import { median } from './stats.mjs';

const IDLE_MS = 500;

/** Spawn → the first `/health` that answers 200 (polled every 2 ms), then the memory after a short idle. */
async function startAndMeasure(options) {
  const client = new AgentClient();
  const agent = await startAgent(options);
  for (;;) {
    try {
      await client.health(agent.url);
      break;
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
  }
  const healthyMs = Number(process.hrtime.bigint() - agent.startedAt) / 1e6;
  client.close();
  await new Promise((resolve) => setTimeout(resolve, IDLE_MS));
  const memory = await memoryMb(agent.child.pid);
  await stopAgent(agent);
  return { healthyMs, ...memory };
}

/** `starts` samples of each variant (`startAgent` options); per variant the medians (and the slowest start). */
export async function footprints(variants, starts) {
  const samples = variants.map(() => []);
  for (let i = 0; i < starts; i++) {
    const order = variants.map((_, index) => index);
    if (i % 2 === 1) order.reverse();
    for (const index of order) samples[index].push(await startAndMeasure(variants[index]));
  }
  return samples.map((list) => {
    const of = (key) => list.map((s) => s[key]);
    return {
      healthy: { median: median(of('healthyMs')), max: Math.max(...of('healthyMs')) },
      rss: median(of('rss')),
      anonymous: median(of('anonymous')),
      private: median(of('private')),
    };
  });
}

export const FOOTPRINT_IDLE_MS = IDLE_MS;
