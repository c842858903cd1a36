#!/usr/bin/env node
// Launcher of the built MCP server (npm "bin"): the bundle in dist/mcp-server after `npm run build`
// (scripts/bundle-nest-app.mjs; docs/server.md, "Startup").
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const entry = new URL('../dist/mcp-server/main.js', import.meta.url);
if (!existsSync(fileURLToPath(entry))) {
  process.stderr.write(
    'cli-mcp-server is not built yet: run `npm run build` (or `node scripts/build.mjs mcp-server`) in the repository first.\n',
  );
  process.exit(1);
}
await import(entry.href);
