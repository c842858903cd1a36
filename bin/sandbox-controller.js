#!/usr/bin/env node
// Launcher of the built sandbox controller (npm "bin"): the bundle in dist/sandbox-controller after `npm run build`
// (scripts/bundle-nest-app.mjs; docs/controller.md).
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const entry = new URL('../dist/sandbox-controller/main.js', import.meta.url);
if (!existsSync(fileURLToPath(entry))) {
  process.stderr.write(
    'sandbox-controller is not built yet: run `npm run build` (or `node scripts/build.mjs sandbox-controller`) in the repository first.\n',
  );
  process.exit(1);
}
await import(entry.href);
