#!/usr/bin/env node
// Bundles the built MCP server into dist/mcp-server/ (docs/server.md, "Startup"): an ESM entry plus chunks, so
// Node does not resolve and read ~1,000 modules one file at a time when a host spawns a stdio server. Code
// splitting keeps what `import()` loads lazy — each transport, and the Kubernetes client (kubernetes-client.js),
// which a local-backend server never loads. The unbundled build in dist/apps/mcp-server stays the input.
import { build } from 'esbuild';
import { rmSync } from 'node:fs';

const outdir = 'dist/mcp-server';

rmSync(outdir, { recursive: true, force: true });
await build({
  entryPoints: { main: 'dist/apps/mcp-server/src/main.js' },
  bundle: true,
  splitting: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  outdir,
  sourcemap: 'linked',
  logLevel: 'error',
  // Optional packages of Nest and its Fastify adapter that the server never uses (imported only when an app asks).
  external: [
    '@nestjs/microservices', '@nestjs/microservices/*', '@nestjs/websockets', '@nestjs/websockets/*', '@nestjs/platform-express',
    '@fastify/multipart', '@fastify/static', '@fastify/view',
    // Nest's ValidationPipe and ClassSerializerInterceptor load it lazily; the server uses neither (issue 19: not a dependency).
    'class-transformer',
  ],
  // CommonJS packages inside an ESM bundle still call require() for Node's built-ins.
  banner: { js: "import { createRequire as __cliMcpCreateRequire } from 'node:module'; const require = __cliMcpCreateRequire(import.meta.url);" },
});
