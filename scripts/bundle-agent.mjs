#!/usr/bin/env node
// Bundles the built sandbox agent into ONE CommonJS file, dist/sandbox-agent/main.js (a package.json beside it
// says "commonjs"), so Node starts it without resolving modules one file at a time and without its ESM loader
// (docs/agent.md, "Start-up and footprint"; bench/agent.bench.mjs prints the figures).
import { build } from 'esbuild';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const outdir = 'dist/sandbox-agent';

// The agent uses only the wire contract of @cli-mcp/agent-client (wire.js: types, constants and the error codes, agent-error.js). The library's index
// also exports the server's HTTP client and with it undici (CommonJS, ~0.5 MB: esbuild cannot prove it unused and
// keeps it), which would slow the agent's start and grow its footprint. So the bundle takes wire.js alone; an agent
// import of anything else from the library fails the build (esbuild: no matching export).
const agentClientWireOnly = {
  name: 'agent-client-wire-only',
  setup(builder) {
    builder.onResolve({ filter: /libs\/agent-client\/src\/index\.js$/ }, (args) => ({
      path: join(args.resolveDir, args.path.replace(/index\.js$/, 'wire.js')),
    }));
  },
};
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
  // Native, so loaded from node_modules: node-pty on the first tty command, the prctl addon at start (non-dumpable,
  // issue 22 item 4; native/non-dumpable).
  external: ['node-pty', '@cli-mcp/non-dumpable'],
  // protocol.sh (the shell's side of the protocol) is inlined as text; nest-cli.json copies it beside the build.
  loader: { '.sh': 'text' },
  plugins: [agentClientWireOnly],
});
writeFileSync(`${outdir}/package.json`, `${JSON.stringify({ type: 'commonjs' })}\n`);
