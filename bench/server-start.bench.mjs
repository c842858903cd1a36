// How fast a stdio server answers its host's first `initialize`, and what it holds at idle (docs/server.md,
// "Startup"): a host (IDE, desktop client) spawns one per client session. Local backend, no isolation (the
// sandbox is started after the answer, C-MCP-13, so it is not part of this figure). Loopback/stdio only; bounded.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { memoryMb } from './lib/agent-process.mjs';
import { SERVER_BIN, serverEnv } from './lib/mcp-clients.mjs';
import { INITIALIZE_PARAMS } from './lib/server-process.mjs';
import { median, printTable } from './lib/stats.mjs';

const STARTS = Number(process.env.BENCH_STARTS ?? 7);
const IDLE_MS = 500;
const INITIALIZE = `${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: INITIALIZE_PARAMS })}\n`;

/** Spawn → the first byte of the `initialize` answer on stdout; the memory after a short idle. */
async function startOnce() {
  const dir = mkdtempSync(join(tmpdir(), 'server-start-'));
  const startedAt = process.hrtime.bigint();
  const child = spawn(process.execPath, [SERVER_BIN, '--transport', 'stdio', '--session-id', 'start-bench', '--state-dir', join(dir, 'state'), '--local-isolation', 'none'], {
    env: serverEnv(),
    stdio: ['pipe', 'pipe', 'ignore'],
  });
  try {
    child.stdin.write(INITIALIZE);
    await new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('no initialize answer within 20 s')), 20_000);
      child.stdout.once('data', () => resolve(clearTimeout(timer)));
      child.once('exit', (code) => reject(new Error(`the server exited with ${code}`)));
    });
    const answeredMs = Number(process.hrtime.bigint() - startedAt) / 1e6;
    await new Promise((resolve) => setTimeout(resolve, IDLE_MS));
    return { answeredMs, ...(await memoryMb(child.pid)) };
  } finally {
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.stdin.end();
    child.kill('SIGTERM');
    await exited;
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function runServerStartBench() {
  const samples = [];
  for (let i = 0; i < STARTS; i++) samples.push(await startOnce());
  const of = (key) => samples.map((s) => s[key]);
  printTable(`stdio server, local backend: spawn → initialize answered (median of ${STARTS} starts; memory ${IDLE_MS} ms after)`, ['metric', 'median', 'range'], [
    ['spawn → initialize answered', `${median(of('answeredMs')).toFixed(0)} ms`, `${Math.min(...of('answeredMs')).toFixed(0)}–${Math.max(...of('answeredMs')).toFixed(0)} ms`],
    ['idle RSS', `${median(of('rss')).toFixed(1)} MB`, `${Math.min(...of('rss')).toFixed(1)}–${Math.max(...of('rss')).toFixed(1)} MB`],
    ['idle anonymous memory', `${median(of('anonymous')).toFixed(1)} MB`, `${Math.min(...of('anonymous')).toFixed(1)}–${Math.max(...of('anonymous')).toFixed(1)} MB`],
  ]);
}

if (import.meta.url === `file://${process.argv[1]}`) await runServerStartBench();
