// The local backend's egress path (`--local-network proxy`, issue 20 item 6): client → the agent's relay on
// loopback TCP → the gateway's Unix socket → upstream, against the gateway's own TCP listener and a direct
// connection, in the same run; and what the relay costs the agent's start. The built agent runs outside a sandbox
// here (the relay's hop is the same loopback either way) on a free port instead of 3128.
import { createServer } from 'node:net';
import { performance } from 'node:perf_hooks';
import { startAgent, stopAgent } from './agent-process.mjs';
import { median } from './stats.mjs';

const STARTS = Number(process.env.BENCH_EGRESS_AGENT_STARTS ?? 10);

/** A free loopback port (the relay binds it a moment later; a bench may take that race). */
export function freePort() {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address();
      probe.close(() => resolve(port));
    });
  });
}

/** A built agent whose relay leads to `socketPath`; resolves with the agent and its relay port. */
export async function startRelayAgent(socketPath) {
  const port = await freePort();
  const agent = await startAgent({ env: { SANDBOX_EGRESS_SOCKET: socketPath, SANDBOX_EGRESS_PORT: String(port) } });
  return { agent, port };
}

/** Agent start to ready (fd 3), median of `STARTS`, without and with the relay, alternating. */
export async function agentStartCost(socketPath) {
  const plain = [];
  const relayed = [];
  for (let i = 0; i < STARTS; i += 1) {
    for (const [into, env] of [[plain, {}], [relayed, { SANDBOX_EGRESS_SOCKET: socketPath, SANDBOX_EGRESS_PORT: String(await freePort()) }]]) {
      const started = performance.now();
      const agent = await startAgent({ env });
      into.push(performance.now() - started);
      await stopAgent(agent);
    }
  }
  return { plain: median(plain), relayed: median(relayed) };
}
