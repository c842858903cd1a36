#!/usr/bin/env node
// `npm run image:<server|sandbox|controller|egress> [-- extra build args]`: builds docker/Containerfile.<name> from the
// repository root with podman, else docker (CONTAINER_ENGINE picks one), tagged
// <IMAGE_REGISTRY/>cli-mcp-<name>:<package version> and labelled with that version and, when this checkout has
// an `origin` remote, its public URL as the image source. Extra arguments go to the engine, e.g.
// `-- --platform linux/arm64` (the sandbox's kubectl follows TARGETARCH) or `-- --build-arg SOURCE_URL=…`.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const [name, ...extra] = process.argv.slice(2);
const file = `docker/Containerfile.${name}`;
if (!name || !existsSync(`${root}${file}`)) {
  console.error(`usage: node scripts/image.mjs <server|sandbox|controller|egress> [engine build args]; ${file} does not exist`);
  process.exit(2);
}
const onPath = (command) => spawnSync('sh', ['-c', 'command -v "$1"', 'sh', command], { stdio: 'ignore' }).status === 0;
const engine = process.env.CONTAINER_ENGINE || ['podman', 'docker'].find(onPath);
if (!engine) {
  console.error('neither podman nor docker is on PATH (set CONTAINER_ENGINE to another engine with a compatible build command)');
  process.exit(1);
}

/**
 * The `origin` remote as a URL anyone may read: https, without credentials, query or `.git`; scp-style and ssh
 * remotes become https on the same host. Anything else (a local path, file://) is no public source: undefined.
 */
function publicSourceUrl(remote) {
  const scp = /^(?:[^@/:]+@)?([^/:]+):(?!\/\/)(.+)$/.exec(remote);
  let url;
  try {
    url = new URL(scp ? `https://${scp[1]}/${scp[2]}` : remote);
  } catch {
    return undefined;
  }
  if (!['https:', 'http:', 'ssh:', 'git:', 'git+ssh:', 'git+https:'].includes(url.protocol) || !url.hostname) return undefined;
  const path = url.pathname.replace(/\/+$/, '').replace(/\.git$/, '');
  // A web remote keeps its scheme and port; an ssh/git one is browsed over https on the same host.
  const web = url.protocol === 'http:' || url.protocol.endsWith('https:');
  return `${url.protocol === 'http:' ? 'http' : 'https'}://${web ? url.host : url.hostname}${path}`;
}

const { version } = JSON.parse(readFileSync(`${root}package.json`, 'utf8'));
const registry = process.env.IMAGE_REGISTRY ? `${process.env.IMAGE_REGISTRY.replace(/\/+$/, '')}/` : '';
const tag = `${registry}cli-mcp-${name}:${version}`;
const args = ['build', '-f', file, '-t', tag, '--build-arg', `VERSION=${version}`];
// A SOURCE_URL among the extra arguments wins; otherwise the origin remote, if it is a public URL.
if (!extra.some((arg) => /(^|=)SOURCE_URL=/.test(arg))) {
  const origin = spawnSync('git', ['remote', 'get-url', 'origin'], { cwd: root, encoding: 'utf8' });
  const source = origin.status === 0 ? publicSourceUrl(origin.stdout.trim()) : undefined;
  if (source) args.push('--build-arg', `SOURCE_URL=${source}`);
}
args.push(...extra, '.');
console.error(`${engine} ${args.join(' ')}`);
const result = spawnSync(engine, args, { cwd: root, stdio: 'inherit' });
process.exit(result.status ?? 1);
