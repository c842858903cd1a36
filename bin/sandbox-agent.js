#!/usr/bin/env node
// Entry point of the sandbox agent (data plane). Runs the build output; configuration is by environment (--help).
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const main = new URL('../dist/sandbox-agent/main.js', import.meta.url);
if (!existsSync(fileURLToPath(main))) {
  process.stderr.write('sandbox-agent is not built: run npm run build\n');
  process.exit(1);
}
await import(main.href);
