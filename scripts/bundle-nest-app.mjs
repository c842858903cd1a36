#!/usr/bin/env node
// Bundles a built Nest app — the MCP server or the sandbox controller — into dist/<app>/ (docs/server.md,
// "Startup"; docs/controller.md): an ESM entry plus chunks, so Node does not resolve and read ~1,000 modules one
// file at a time when a host spawns a stdio server or a pod starts the controller. Code splitting keeps what
// `import()` loads lazy — the server's transports and its Kubernetes client (kubernetes-client.js), which a
// local-backend server never loads; the controller's runtime, which --help and flag errors never load. The
// unbundled build in dist/apps/<app> stays the input. Usage: node scripts/bundle-nest-app.mjs <app>.
import { build } from 'esbuild';
import { rmSync } from 'node:fs';

// egress-gateway (cli-mcp-egress) is no Nest app, but ships the same way: one ESM bundle with lazy chunks.
const APPS = ['mcp-server', 'sandbox-controller', 'egress-gateway'];
const app = process.argv[2];
if (!APPS.includes(app)) {
  console.error(`usage: bundle-nest-app.mjs <${APPS.join('|')}>; got ${JSON.stringify(app)}`);
  process.exit(2);
}
const outdir = `dist/${app}`;

rmSync(outdir, { recursive: true, force: true });
await build({
  entryPoints: { main: `dist/apps/${app}/src/main.js` },
  bundle: true,
  splitting: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  outdir,
  sourcemap: 'linked',
  logLevel: 'error',
  // Optional packages of Nest and its Fastify adapter that neither app uses (imported only when an app asks).
  external: [
    '@nestjs/microservices', '@nestjs/microservices/*', '@nestjs/websockets', '@nestjs/websockets/*', '@nestjs/platform-express',
    '@fastify/multipart', '@fastify/static', '@fastify/view',
    // Nest's ValidationPipe and ClassSerializerInterceptor load it lazily; neither app uses either (issue 19: not a dependency).
    'class-transformer',
  ],
  // whatwg-url (under the Kubernetes client's node-fetch) requires Node's deprecated `punycode` module, which prints
  // a DEP0040 warning on Node 22+; the userland package of the same API takes its place (issue 22 item 7).
  alias: { punycode: 'punycode/' },
  // CommonJS packages inside an ESM bundle still call require() for Node's built-ins.
  banner: { js: "import { createRequire as __cliMcpCreateRequire } from 'node:module'; const require = __cliMcpCreateRequire(import.meta.url);" },
});
