#!/usr/bin/env node
// prepack/postpack: ships the lockfile as npm-shrinkwrap.json, so `npm install -g cli-mcp-server` gets the
// dependency tree CI tested (npm honours a published package's shrinkwrap; it never ships package-lock.json).
// Usage: node scripts/pack-shrinkwrap.mjs <write|remove> [package dir, default: the repository].
import { copyFileSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const [action, dir] = process.argv.slice(2);
const root = fileURLToPath(new URL('..', import.meta.url));
const target = join(resolve(dir ?? root), 'npm-shrinkwrap.json');
if (action === 'write') copyFileSync(join(root, 'package-lock.json'), target);
else if (action === 'remove') rmSync(target, { force: true });
else {
  console.error('usage: node scripts/pack-shrinkwrap.mjs <write|remove> [package dir]');
  process.exit(2);
}
