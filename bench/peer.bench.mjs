// Side by side with the simplest peer (issue 11): one whole `tools/call` of `true` over the SDK client, ours (local
// backend, bubblewrap) against `mcp-server-commands` 0.5.0 (a fresh `/bin/sh -c` per call, no sandbox), in the same
// run, in alternating rounds. The peer speaks stdio only, so our HTTP end-to-end call is set beside its stdio call
// and beside our agent alone; over HTTP with the SDK v1 client (the goal's), the SDK v2 client in both protocol
// eras, and no client library at all. Loopback only; bounded; stops by itself.
import { AgentClient } from '../dist/libs/agent-client/src/index.js';
import { startAgent, stopAgent } from './lib/agent-process.mjs';
import { httpContestant, httpContestantV2, ourStdioServer, stdioContestant } from './lib/mcp-clients.mjs';
import { ensurePeer, PEER_ENTRY, PEER_TOOL } from './lib/peer.mjs';
import { ratioGoal } from './lib/goals.mjs';
import { alternatingRounds, p50WithSpread, p99Of, ratioMedian, ratioWithSpread } from './lib/rounds.mjs';
import { callBash, closeConnections, startServer } from './lib/server-process.mjs';
import { printTable } from './lib/stats.mjs';

const CALLS = Number(process.env.BENCH_PEER_CALLS ?? 400);
const ROUNDS = Number(process.env.BENCH_PEER_ROUNDS ?? 3);
// Untimed calls per contestant before its first round. 50 by default, the protocol of every earlier round; V8 keeps
// optimising the call path for thousands of calls (docs/benchmarks.md, round 5), so BENCH_PEER_WARMUP=4000 measures
// a long-running server warm.
const WARMUP = Number(process.env.BENCH_PEER_WARMUP ?? 50);
const BWRAP = ['--local-isolation', 'bwrap'];

export async function runPeerBench() {
  const skipped = ensurePeer();
  if (skipped) {
    console.log(`\nPeer benchmark skipped: ${skipped}.`);
    return;
  }
  const opened = [];
  const open = async (label, start) => {
    const contestant = await start();
    opened.push(contestant);
    return { label, ...contestant };
  };
  try {
    const http = await startServer(BWRAP);
    opened.push({ close: () => http.stop() });
    const agentProcess = await startAgent();
    const agentClient = new AgentClient();
    opened.push({ close: async () => { agentClient.close(); await stopAgent(agentProcess); } });

    const contestants = [
      await open('peer: mcp-server-commands 0.5.0, stdio (sh -c per call, no sandbox)', () =>
        stdioContestant({ args: [PEER_ENTRY], tool: PEER_TOOL, toolArguments: { command: 'true' } })),
      await open('ours, stdio, local + bwrap, default network (isolated here)', () => ourStdioServer(BWRAP, 'peer-bwrap')),
      await open('ours, stdio, local + bwrap, --local-network host (Unix-socket agent since issue 11)', () => ourStdioServer([...BWRAP, '--local-network', 'host'], 'peer-host')),
      await open('ours, stdio, local, no isolation (Unix-socket agent)', () => ourStdioServer(['--local-isolation', 'none'], 'peer-plain')),
      await open('ours, HTTP end to end (SDK client → /mcp), local + bwrap, default network', () => httpContestant(http.url, 'peer-http')),
      await open('ours, HTTP end to end, SDK v2 client, 2025 era (legacy), same server', () => httpContestantV2(http.url, 'peer-http-v2', 'legacy')),
      await open('ours, HTTP end to end, SDK v2 client, 2026-07-28 era, same server', () => httpContestantV2(http.url, 'peer-http-v2m', 'modern')),
      { label: 'ours, HTTP end to end (raw keep-alive POST /mcp, no client library), same server', call: () => callBash(http.url, 'peer-http', 'true') },
      { label: 'ours, agent alone (POST /exec, TCP loopback)', call: () => agentClient.exec(agentProcess.url, agentProcess.token, { command: 'true' }) },
    ];
    const results = await alternatingRounds(contestants, { rounds: ROUNDS, calls: CALLS, warmup: WARMUP });
    const [peer, stdioBwrap, stdioHost, stdioPlain, httpBwrap, httpV2Legacy, httpV2Modern, rawHttp, agentAlone] = results;
    printTable(
      `Whole tools/call of \`true\`, side by side, SDK v1 client unless noted (${WARMUP} warm-up calls each, then ${ROUNDS} alternating rounds × ${CALLS} calls; p50 = median of the round p50s, range in brackets)`,
      ['path', 'p50 (range)', 'p99', 'ratio to the peer (range)', 'goal'],
      [
        [peer.label, p50WithSpread(peer), p99Of(peer), '1', ''],
        ...[stdioBwrap, stdioHost, stdioPlain].map((r, i) => [r.label, p50WithSpread(r), p99Of(r), ratioWithSpread(r, peer), i === 0 ? '≤ 0.8×' : '']),
        [httpBwrap.label, p50WithSpread(httpBwrap), p99Of(httpBwrap), ratioWithSpread(httpBwrap, peer), '≤ 0.8×'],
        ...[httpV2Legacy, httpV2Modern].map((r) => [r.label, p50WithSpread(r), p99Of(r), ratioWithSpread(r, peer), '']),
        [rawHttp.label, p50WithSpread(rawHttp), p99Of(rawHttp), ratioWithSpread(rawHttp, peer), ''],
        [agentAlone.label, p50WithSpread(agentAlone), p99Of(agentAlone), ratioWithSpread(agentAlone, peer), ''],
        ['ours, raw HTTP end to end / agent alone', '', '', `${ratioWithSpread(rawHttp, agentAlone)} of the agent`, ''],
      ],
    );
    ratioGoal('peer', 'whole stdio call, local + bwrap / the peer', ratioMedian(stdioBwrap, peer), { atMost: 0.8 });
    ratioGoal('peer', 'HTTP end to end, SDK v1 client / the peer', ratioMedian(httpBwrap, peer), { atMost: 0.8 });
  } finally {
    for (const contestant of opened.reverse()) await contestant.close().catch(() => undefined);
    closeConnections();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await runPeerBench();
