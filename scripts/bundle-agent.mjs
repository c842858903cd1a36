#!/usr/bin/env node
// Bundles the built sandbox agent into ONE CommonJS file, dist/sandbox-agent/main.js (a package.json beside it
// says "commonjs"), so Node starts it without resolving modules one file at a time and without its ESM loader
// (docs/agent.md, "Start-up and footprint"; bench/agent.bench.mjs prints the figures).
import { build } from 'esbuild';
import { rmSync, writeFileSync } from 'node:fs';

const outdir = 'dist/sandbox-agent';
rmSync(outdir, { recursive: true, force: true });
await build({
  entryPoints: { main: 'dist/apps/sandbox-agent/src/main.js' },
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node20',
  outdir,
  minify: true,
  sourcemap: 'linked',
  logLevel: 'error',
  // node-pty is native: loaded from node_modules on the first tty command.
  external: ['node-pty'],
});
writeFileSync(`${outdir}/package.json`, `${JSON.stringify({ type: 'commonjs' })}\n`);
