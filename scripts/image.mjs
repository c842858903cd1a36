#!/usr/bin/env node
// `npm run image:<server|sandbox|controller> [-- extra build args]`: builds docker/Containerfile.<name> from the
// repository root with podman, else docker (CONTAINER_ENGINE picks one), tagged
// <IMAGE_REGISTRY/>cli-mcp-<name>:<package version> and labelled with that version. Extra arguments go to the
// engine, e.g. `-- --platform linux/arm64` (the sandbox's kubectl follows TARGETARCH).
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const [name, ...extra] = process.argv.slice(2);
const file = `docker/Containerfile.${name}`;
if (!name || !existsSync(`${root}${file}`)) {
  console.error(`usage: node scripts/image.mjs <server|sandbox|controller> [engine build args]; ${file} does not exist`);
  process.exit(2);
}
const onPath = (command) => spawnSync('sh', ['-c', 'command -v "$1"', 'sh', command], { stdio: 'ignore' }).status === 0;
const engine = process.env.CONTAINER_ENGINE || ['podman', 'docker'].find(onPath);
if (!engine) {
  console.error('neither podman nor docker is on PATH (set CONTAINER_ENGINE to another engine with a compatible build command)');
  process.exit(1);
}
const { version } = JSON.parse(readFileSync(`${root}package.json`, 'utf8'));
const registry = process.env.IMAGE_REGISTRY ? `${process.env.IMAGE_REGISTRY.replace(/\/+$/, '')}/` : '';
const tag = `${registry}cli-mcp-${name}:${version}`;
const args = ['build', '-f', file, '-t', tag, '--build-arg', `VERSION=${version}`, ...extra, '.'];
console.error(`${engine} ${args.join(' ')}`);
const result = spawnSync(engine, args, { cwd: root, stdio: 'inherit' });
process.exit(result.status ?? 1);
