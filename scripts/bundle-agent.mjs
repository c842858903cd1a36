#!/usr/bin/env node
// Bundles the built sandbox agent into dist/sandbox-agent/ (one ESM entry plus lazy chunks): Node then reads two
// files instead of resolving every module one file at a time (bench/agent.bench.mjs prints the start time).
import { build } from 'esbuild';
import { rmSync } from 'node:fs';

const outdir = 'dist/sandbox-agent';
rmSync(outdir, { recursive: true, force: true });
await build({
  entryPoints: { main: 'dist/apps/sandbox-agent/src/main.js' },
  bundle: true,
  splitting: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  outdir,
  minify: true,
  sourcemap: 'linked',
  logLevel: 'error',
  // node-pty is native: loaded from node_modules on the first tty command.
  external: ['node-pty'],
  // Bundled CommonJS dependencies call require(); give the ESM bundle one.
  banner: { js: "import { createRequire as __cliMcpRequire } from 'node:module'; const require = __cliMcpRequire(import.meta.url);" },
});
