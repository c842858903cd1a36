#!/usr/bin/env node
// Launcher of the built egress gateway (npm "bin"): the bundle in dist/egress-gateway after `npm run build`
// (scripts/bundle-nest-app.mjs; docs/egress.md "Kubernetes").
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const entry = new URL('../dist/egress-gateway/main.js', import.meta.url);
if (!existsSync(fileURLToPath(entry))) {
  process.stderr.write(
    'cli-mcp-egress is not built yet: run `npm run build` (or `node scripts/build.mjs egress-gateway`) in the repository first.\n',
  );
  process.exit(1);
}
await import(entry.href);
