#!/usr/bin/env node
// Builds every application project of nest-cli.json with the Nest CLI (tsc builder: the swc builder does not
// emit libs in monorepo mode, stack-notes A.6). Projects whose entry file does not exist yet are skipped.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';

const nest = JSON.parse(readFileSync('nest-cli.json', 'utf8'));
const only = process.argv.slice(2);
const apps = Object.entries(nest.projects)
  .filter(([, p]) => p.type === 'application' && existsSync(`${p.sourceRoot}/${p.entryFile}.ts`))
  .map(([name]) => name)
  .filter((name) => only.length === 0 || only.includes(name));
// A full build starts from an empty dist/: every app shares it (deleteOutDir would wipe the others), and files
// left by an older layout (test doubles compiled before they were excluded) would otherwise ship.
if (only.length === 0) rmSync('dist', { recursive: true, force: true });
const BUNDLERS = {
  'mcp-server': ['scripts/bundle-nest-app.mjs', 'mcp-server'],
  'sandbox-controller': ['scripts/bundle-nest-app.mjs', 'sandbox-controller'],
  'egress-gateway': ['scripts/bundle-nest-app.mjs', 'egress-gateway'],
  'sandbox-agent': ['scripts/bundle-agent.mjs'],
};
for (const app of apps) {
  const result = spawnSync(process.execPath, ['node_modules/@nestjs/cli/bin/nest.js', 'build', app], { stdio: 'inherit' });
  if (result.status !== 0) {
    console.error(`build failed for ${app}`);
    process.exit(result.status ?? 1);
  }
  // Apps that ship as a bundle of their build (scripts/bundle-*.mjs): what their launchers and images run.
  const bundler = BUNDLERS[app];
  if (bundler) {
    const bundled = spawnSync(process.execPath, bundler, { stdio: 'inherit' });
    if (bundled.status !== 0) {
      console.error(`bundling ${app} failed`);
      process.exit(bundled.status ?? 1);
    }
  }
}
