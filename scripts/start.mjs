#!/usr/bin/env node
// `npm start`: builds when the build is missing or older than any source under apps/ or libs/, then runs the
// MCP server over HTTP on 127.0.0.1:8080 (extra arguments are appended, so `npm start -- --address …` wins).
// Signals are forwarded once, so Ctrl-C drains running commands like a SIGTERM would (C-HTTP-4).
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const outputs = ['dist/mcp-server/main.js', 'dist/sandbox-agent/main.js'].map((path) => join(root, path));

/** Newest modification time of the TypeScript sources the two apps are built from (tests excluded). */
function newestSource(dir) {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      if (entry.name !== 'node_modules' && entry.name !== 'test') newest = Math.max(newest, newestSource(path));
    } else if (entry.name.endsWith('.ts') && !/\.(spec|test)\.ts$/.test(entry.name)) {
      newest = Math.max(newest, statSync(path).mtimeMs);
    }
  }
  return newest;
}

function needsBuild() {
  if (!outputs.every((path) => existsSync(path))) return true;
  const built = Math.min(...outputs.map((path) => statSync(path).mtimeMs));
  return Math.max(newestSource(join(root, 'apps')), newestSource(join(root, 'libs'))) > built;
}

if (needsBuild()) {
  process.stderr.write('start: building mcp-server and sandbox-agent…\n');
  const build = spawnSync(process.execPath, [join(root, 'scripts/build.mjs'), 'mcp-server', 'sandbox-agent'], { cwd: root, stdio: 'inherit' });
  if (build.status !== 0) process.exit(build.status ?? 1);
}

// Own process group: a terminal's Ctrl-C reaches only this script, which forwards it exactly once (a second
// signal would skip the drain).
const server = spawn(
  process.execPath,
  [join(root, 'bin/cli-mcp-server.js'), '--transport', 'http', '--address', '127.0.0.1:8080', ...process.argv.slice(2)],
  { cwd: root, stdio: 'inherit', detached: true },
);
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.on(signal, () => {
    if (server.exitCode === null) server.kill(signal === 'SIGHUP' ? 'SIGTERM' : signal);
  });
}
process.on('exit', () => {
  if (server.exitCode === null && server.signalCode === null) server.kill('SIGTERM');
});
server.on('exit', (code, signal) => {
  process.exit(code ?? (signal ? 128 : 1));
});
