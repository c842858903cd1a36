#!/usr/bin/env node
// `node scripts/images-build.mjs [--json] [server sandbox …]`: builds docker/Containerfile.<name> (all of them without
// names) for real with the container engine, tagged localhost/cli-mcp-<name>:ci-<content hash>. A tag that exists
// is reused, so a second build of the same sources costs nothing: .ci/run builds once and both test passes and
// `npm run bench -- images` run what it built (docs/operations.md, "Images built by CI"). The hash covers the
// Containerfile, every file of the build context (.dockerignore applied), the build args and the base image's ID.
//
// What a machine that reaches only the npm registry and Debian needs, passed as engine flags (the recipes
// themselves stay what any builder runs):
//  - the base image: scripts/image-base.mjs (the official one, or a stand-in it prints as such);
//  - `--network host`, and this machine's npm registry and CA bundle as /root/.npmrc of the build's RUN steps
//    (TLS to the registry is intercepted here; the CA never lands in a layer: it is a mount);
//  - kubectl from a mirror: this machine's kubectl binary, laid out as dl.k8s.io lays out releases, mounted
//    read-only and named by KUBECTL_MIRROR=file://… (the recipe verifies its .sha256 as for any mirror).
import { createHash } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, linkSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureBaseImage } from './image-base.mjs';
import { engineCommand, ULIMIT_FLAGS } from './image-engine.mjs';

const repoRoot = fileURLToPath(new URL('..', import.meta.url));
const MOUNT = '/run/cli-mcp-build';

/** The images this checkout can build: one per docker/Containerfile.<name>. */
export function imageNames(contextDir = repoRoot) {
  return readdirSync(join(contextDir, 'docker')).filter((file) => file.startsWith('Containerfile.')).map((file) => file.slice('Containerfile.'.length)).sort();
}

/**
 * Builds (or reuses) each image of `names`. `contextDir` is the checkout to build (default: this one);
 * `npmrc` adds lines to the build's npm config; `prefix` names the repositories. Returns the base image and, per image, its tag, whether the tag
 * was reused and the build's seconds.
 */
export function buildImages({ names = imageNames(), contextDir = repoRoot, npmrc = [], prefix = 'localhost/cli-mcp-', log = (line) => console.error(line) } = {}) {
  const engine = engineCommand();
  const base = ensureBaseImage(log);
  if (base.standIn) log(base.standIn);
  const baseId = inspect(engine, base.ref, '{{.Id}}');
  const work = mkdtempSync(join(process.env.CLI_MCP_IMAGE_WORKDIR ?? '/var/tmp', 'cli-mcp-images-'));
  try {
    const env = buildEnvironment(work, npmrc);
    const context = contextHash(contextDir);
    const images = [];
    for (const name of names) {
      const file = `docker/Containerfile.${name}`;
      const version = JSON.parse(readFileSync(join(contextDir, 'package.json'), 'utf8')).version;
      const args = [...env.buildArgs, `VERSION=${version}`];
      const hash = createHash('sha256').update([readFileSync(join(contextDir, file), 'utf8'), context, baseId, env.fingerprint, ...args].join('\0')).digest('hex').slice(0, 16);
      const repository = `${prefix}${name}`;
      const tag = `${repository}:ci-${hash}`;
      if (inspect(engine, tag, '{{.Id}}') !== undefined) {
        images.push({ name, tag, cached: true, seconds: 0 });
        continue;
      }
      log(`building ${tag} from ${file}`);
      const started = process.hrtime.bigint();
      const argv = [...engine, 'build', '-f', file, '-t', tag, '--network', 'host', ...ULIMIT_FLAGS, ...env.volumes.flatMap((v) => ['-v', v]), ...args.flatMap((a) => ['--build-arg', a]), '.'];
      // The build's output goes to stderr: stdout carries only the result (--json).
      const result = spawnSync(argv[0], argv.slice(1), { cwd: contextDir, stdio: ['ignore', 2, 2] });
      if (result.status !== 0) throw new Error(`${file}: the build failed (exit ${result.status ?? result.signal}); its output is above`);
      images.push({ name, tag, cached: false, seconds: Number(process.hrtime.bigint() - started) / 1e9 });
      removeOlderTags(engine, repository, tag);
    }
    return { base, images };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

function inspect(engine, ref, format) {
  const out = spawnSync(engine[0], [...engine.slice(1), 'image', 'inspect', '--format', format, ref], { encoding: 'utf8' });
  return out.status === 0 ? out.stdout.trim() : undefined;
}

/** Keeps one CI build per image: the tags of earlier contents only fill the disk. */
function removeOlderTags(engine, repository, keep) {
  const listed = spawnSync(engine[0], [...engine.slice(1), 'images', '--format', '{{.Repository}}:{{.Tag}}', repository], { encoding: 'utf8' });
  const old = (listed.stdout ?? '').split('\n').filter((tag) => tag.startsWith(`${repository}:ci-`) && tag !== keep);
  if (old.length > 0) spawnSync(engine[0], [...engine.slice(1), 'rmi', ...old], { stdio: 'ignore' });
}

/** The mounts and build args that carry this machine's registry access and kubectl mirror into the build. */
function buildEnvironment(work, extraNpmrc) {
  const volumes = [];
  const buildArgs = [];
  const fingerprint = [];
  const npmrc = [`registry=${npmConfig('registry') ?? 'https://registry.npmjs.org/'}`, ...extraNpmrc];
  const cafile = npmConfig('cafile');
  if (cafile && existsSync(cafile)) {
    copyFileSync(cafile, join(work, 'ca.crt'));
    npmrc.push(`cafile=${MOUNT}/ca.crt`);
  }
  writeFileSync(join(work, 'npmrc'), `${npmrc.join('\n')}\n`);
  volumes.push(`${join(work, 'npmrc')}:/root/.npmrc:ro`);
  fingerprint.push(...npmrc);
  const kubectl = machineKubectl();
  if (kubectl) {
    const arch = { x64: 'amd64', arm64: 'arm64' }[process.arch];
    const dir = join(work, 'kubectl', 'release', kubectl.version, 'bin', 'linux', arch);
    mkdirSync(dir, { recursive: true });
    try {
      linkSync(kubectl.path, join(dir, 'kubectl'));
    } catch {
      copyFileSync(kubectl.path, join(dir, 'kubectl'));
    }
    writeFileSync(join(dir, 'kubectl.sha256'), `${kubectl.sha256}\n`);
    buildArgs.push(`KUBECTL_MIRROR=file://${MOUNT}/kubectl`, `KUBECTL_VERSION=${kubectl.version}`);
    fingerprint.push(kubectl.sha256);
  }
  volumes.push(`${work}:${MOUNT}:ro`);
  return { volumes, buildArgs, fingerprint: fingerprint.join('\n') };
}

function npmConfig(key) {
  const out = spawnSync('npm', ['config', 'get', key], { encoding: 'utf8' });
  const value = out.stdout?.trim();
  return out.status === 0 && value && value !== 'null' && value !== 'undefined' ? value : undefined;
}

/**
 * A plain kubectl release binary on this machine (KUBECTL_BINARY, else the one on PATH or, when that is a
 * version dispatcher, its newest versioned sibling kubectl.1.NN), with its version and checksum.
 */
function machineKubectl() {
  const onPath = spawnSync('sh', ['-c', 'command -v kubectl'], { encoding: 'utf8' }).stdout?.trim();
  const first = process.env.KUBECTL_BINARY ?? (onPath ? realpathSync(onPath) : undefined);
  if (!first) return undefined;
  const siblings = readdirSync(dirname(first)).filter((name) => /^kubectl\.\d+\.\d+$/.test(name))
    .sort((a, b) => Number(b.split('.')[2]) - Number(a.split('.')[2])).map((name) => join(dirname(first), name));
  for (const path of [first, ...siblings]) {
    const out = spawnSync(path, ['version', '--client', '-o', 'json'], { encoding: 'utf8' });
    const version = out.status === 0 ? JSON.parse(out.stdout).clientVersion?.gitVersion : undefined;
    if (/^v\d+\.\d+\.\d+$/.test(version ?? '')) return { path, version, sha256: createHash('sha256').update(readFileSync(path)).digest('hex') };
  }
  return undefined;
}

/** sha256 over the build context: every file the engine would send (.dockerignore applied), path and content. */
export function contextHash(contextDir) {
  const ignore = readIgnore(join(contextDir, '.dockerignore'));
  const hash = createHash('sha256');
  const walk = (dir) => {
    for (const name of readdirSync(dir).sort()) {
      const path = join(dir, name);
      const rel = relative(contextDir, path);
      if (ignore(rel)) continue;
      const stat = statSync(path, { throwIfNoEntry: false });
      if (!stat) continue;
      if (stat.isDirectory()) walk(path);
      else hash.update(`${rel}\0${stat.mode & 0o111 ? 'x' : '-'}\0`).update(readFileSync(path)).update('\0');
    }
  };
  walk(contextDir);
  return hash.digest('hex');
}

/** The .dockerignore patterns this repository uses: paths from the context root, `*` within one segment. */
export function readIgnore(file) {
  const patterns = existsSync(file) ? readFileSync(file, 'utf8').split('\n').map((line) => line.trim()).filter((line) => line && !line.startsWith('#')) : [];
  const regexes = patterns.map((pattern) => new RegExp(`^${pattern.replace(/\/+$/, '').replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '[^/]*').replace(/\?/g, '[^/]')}(/.*)?$`));
  return (rel) => regexes.some((regex) => regex.test(rel));
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const json = process.argv.includes('--json');
  const names = process.argv.slice(2).filter((arg) => arg !== '--json');
  const started = Date.now();
  try {
    const result = buildImages(names.length > 0 ? { names } : {});
    if (json) {
      console.log(JSON.stringify(result));
    } else {
      for (const image of result.images) console.log(`${image.name}\t${image.tag}\t${image.cached ? 'reused' : `built in ${image.seconds.toFixed(0)} s`}`);
      console.log(`images ready in ${((Date.now() - started) / 1000).toFixed(0)} s`);
    }
  } catch (error) {
    console.error(error instanceof Error ? error.message : String(error));
    process.exit(1);
  }
}
