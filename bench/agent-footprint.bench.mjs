// The figures behind the agent's HTTP layer and bundle (issue 11): start → healthy and idle memory of a ladder of
// one-route servers, from bare Node up to Nest + Fastify, beside a user-land V8 startup snapshot and the agent
// itself. Fixtures in bench/fixtures/footprint/ are bundled here with esbuild the way the agent used to be (ESM) or
// is now (one CommonJS file). Loopback only; bounded.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';
import { FOOTPRINT_IDLE_MS, footprints } from './lib/footprint.mjs';
import { callgrindUnavailable, instructionsToReady } from './lib/instructions.mjs';
import { AGENT_ENTRY } from './lib/agent-process.mjs';
import { ms, printTable } from './lib/stats.mjs';

const STARTS = Number(process.env.BENCH_STARTS ?? 9);
const FIXTURES = new URL('./fixtures/footprint/', import.meta.url).pathname;
// What the agent's own bundle left out while it ran on Nest (optional integrations it never loads).
const NEST_EXTERNALS = [
  '@nestjs/microservices', '@nestjs/microservices/*', '@nestjs/websockets', '@nestjs/websockets/*',
  '@nestjs/platform-express', 'class-transformer', 'class-validator', '@fastify/static', '@fastify/view', '@fastify/multipart',
];

const AGENT_BUILD = new URL('../dist/apps/sandbox-agent/src/main.js', import.meta.url).pathname;

/** The built agent bundled as the product is, but logging through pino (its logger before issue 11). */
async function agentWithPino(dir) {
  const outfile = join(dir, 'agent-pino', 'main.cjs');
  const swapLogger = {
    name: 'pino-logger',
    setup(on) {
      on.onResolve({ filter: /agent-logger\.js$/ }, () => ({ path: join(FIXTURES, 'pino-agent-logger.mjs') }));
    },
  };
  await build({ entryPoints: [AGENT_BUILD], outfile, bundle: true, platform: 'node', format: 'cjs', target: 'node20', minify: true, logLevel: 'error', external: ['node-pty'], loader: { '.sh': 'text' }, plugins: [swapLogger] });
  return { entry: [outfile] };
}

async function bundle(dir, fixture, format) {
  const outfile = join(dir, fixture.replace(/\.m?js$/, format === 'esm' ? '.bundle.mjs' : '.bundle.cjs'));
  await build({
    entryPoints: [join(FIXTURES, fixture)], outfile, bundle: true, platform: 'node', format, target: 'node20', minify: true, logLevel: 'error',
    external: NEST_EXTERNALS,
    ...(format === 'esm' ? { banner: { js: "import { createRequire as __r } from 'node:module'; const require = __r(import.meta.url);" } } : {}),
  });
  return { entry: [outfile] };
}

function snapshot(dir) {
  const blob = join(dir, 'snapshot-http.blob');
  const made = spawnSync(process.execPath, ['--snapshot-blob', blob, '--build-snapshot', join(FIXTURES, 'snapshot-http.cjs')], { encoding: 'utf8' });
  if (made.status !== 0) throw new Error(`building the snapshot failed: ${made.stderr}`);
  return { entry: ['--snapshot-blob', blob] };
}

export async function runAgentFootprintBench() {
  const dir = mkdtempSync(join(tmpdir(), 'footprint-bench-'));
  try {
    const rungs = [
      ['bare Node: node:http, one ESM file', { entry: [join(FIXTURES, 'bare-http.mjs')] }],
      ['bare Node: node:http, one CommonJS file (no ESM loader)', await bundle(dir, 'bare-http.mjs', 'cjs')],
      ['bare Node from a user-land V8 startup snapshot', snapshot(dir)],
      ['Fastify 5 (bundle, ESM)', await bundle(dir, 'fastify-http.mjs', 'esm')],
      ['Nest 12 + Fastify 5 (bundle, ESM: how the agent was built)', await bundle(dir, 'nest-fastify-http.mjs', 'esm')],
      ['the agent, logging with pino 10 instead of its own logger', await agentWithPino(dir)],
      ['the agent: node:http, own logger, one CommonJS file', {}],
    ];
    const results = await footprints(rungs.map(([, options]) => options), STARTS);
    const noCallgrind = callgrindUnavailable();
    const instructions = [];
    for (const [, options] of rungs) {
      instructions.push(noCallgrind ? `— (${noCallgrind})` : await instructionsToReady(options.entry ?? [AGENT_ENTRY]).then((n) => `${n.toFixed(0)} M`, (error) => `— (${error.message})`));
    }
    printTable(`Agent start-up ladder: one-route servers (${STARTS} interleaved starts each; memory ${FOOTPRINT_IDLE_MS} ms after healthy)`,
      ['variant', 'start → healthy p50 (max)', 'instructions to listening (callgrind)', 'idle RSS', 'anonymous', 'private'],
      rungs.map(([label], i) => {
        const r = results[i];
        return [label, `${ms(r.healthy.median)} (${ms(r.healthy.max)})`, instructions[i], `${r.rss.toFixed(1)} MB`, `${r.anonymous.toFixed(1)} MB`, `${r.private.toFixed(1)} MB`];
      }));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await runAgentFootprintBench();
