#!/usr/bin/env node
// The base every docker/Containerfile.* starts FROM (NODE_IMAGE: docker.io/library/node:<.ci/node-lts>-bookworm-slim).
// `node scripts/image-base.mjs` makes sure the container engine has it: the official image when the engine
// already holds it or can pull it; otherwise a STAND-IN under the same name, built from Debian packages
// (`debootstrap --variant=minbase bookworm`) and the npm registry's `node-linux-<arch>` package (the official
// binary and headers) plus the npm release that Node version bundles. CI machines reach no image registry, only
// Debian's and npm's (docs/operations.md, "Images built by CI"). The stand-in is labelled io.cli-mcp.stand-in,
// and every caller prints that it is one: sizes measured over it are "added over the base", never the base's own.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { engineCommand } from './image-engine.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
export const STAND_IN_LABEL = 'io.cli-mcp.stand-in';
const DEBIAN_SUITE = 'bookworm';
// Bump when the stand-in's recipe changes: an older stand-in is then rebuilt rather than reused.
const STAND_IN_RECIPE = '2';

/** The NODE_IMAGE default of the Containerfiles: the official image at the LTS CI tests on. */
export function baseImageRef() {
  const lts = readFileSync(join(root, '.ci/node-lts'), 'utf8').trim();
  return { ref: `docker.io/library/node:${lts}-${DEBIAN_SUITE}-slim`, lts };
}

function run(argv, options = {}) {
  const result = spawnSync(argv[0], argv.slice(1), { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, ...options });
  if (result.error || result.status !== 0) {
    throw new Error(`${argv.join(' ')} failed (${result.error?.message ?? `exit ${result.status}`}):\n${result.stderr ?? ''}`);
  }
  return result.stdout;
}

/**
 * Ensures the engine holds the base image. Returns `{ ref, standIn }`; `standIn` is the stand-in's description
 * (undefined for the official image). `log` receives one line per step.
 */
export function ensureBaseImage(log = (line) => console.error(line)) {
  const { ref, lts } = baseImageRef();
  const engine = engineCommand();
  const labelOf = () => {
    const out = spawnSync(engine[0], [...engine.slice(1), 'image', 'inspect', '--format', `{{index .Labels "${STAND_IN_LABEL}"}}`, ref], { encoding: 'utf8' });
    return out.status === 0 ? out.stdout.trim().replace(/^<no value>$/, '') : undefined;
  };
  let label = labelOf();
  if (label === '') return describe(ref, label);
  // Not held, or held as a stand-in: the official image wins whenever it can be had.
  log(`base image ${ref}: ${label === undefined ? 'not held' : 'a stand-in is held'}, trying to pull the official image`);
  const pull = spawnSync(engine[0], [...engine.slice(1), 'pull', '--quiet', ref], { encoding: 'utf8', timeout: 120_000 });
  if (pull.status === 0) return describe(ref, '');
  log(`base image ${ref}: cannot be pulled (${(pull.stderr || pull.error?.message || '').trim().split('\n').pop()})`);
  if (label !== undefined && label.startsWith(`recipe ${STAND_IN_RECIPE}:`)) return describe(ref, label);
  log(`base image ${ref}: building a stand-in`);
  buildStandIn(ref, lts, engine, log);
  label = labelOf();
  return describe(ref, label ?? '');
}

function describe(ref, label) {
  return { ref, standIn: label === '' ? undefined : `${ref} is a STAND-IN, not the official image: ${label.replace(/^recipe \d+: /, '')}` };
}

function buildStandIn(ref, lts, engine, log) {
  const arch = { x64: 'x64', arm64: 'arm64' }[process.arch];
  if (!arch) throw new Error(`no stand-in base for ${process.arch}: the npm registry's node packages cover x64 and arm64`);
  const mirror = process.env.DEBIAN_MIRROR ?? 'http://deb.debian.org/debian';
  const work = mkdtempSync(join(process.env.CLI_MCP_IMAGE_WORKDIR ?? '/var/tmp', 'cli-mcp-base-'));
  try {
    const rootfs = join(work, 'rootfs');
    log(`stand-in: debootstrap --variant=minbase ${DEBIAN_SUITE} from ${mirror}`);
    run(['debootstrap', '--variant=minbase', DEBIAN_SUITE, rootfs, mirror]);
    log(`stand-in: node-linux-${arch}@${lts} and its npm from the npm registry`);
    const packs = join(work, 'packs');
    mkdirSync(packs);
    const nodeTar = run(['npm', 'pack', '--silent', `node-linux-${arch}@${lts}`], { cwd: packs }).trim().split('\n').pop();
    const nodeDir = join(work, 'node');
    mkdirSync(nodeDir);
    run(['tar', '-xzf', join(packs, nodeTar), '-C', nodeDir, '--strip-components=1']);
    // The npm this Node release bundles: the newest "upgrade npm to X" of its changelog (newest entries first).
    const npmVersion = /upgrade npm to (\d+\.\d+\.\d+)/.exec(readFileSync(join(nodeDir, 'CHANGELOG.md'), 'utf8'))?.[1];
    if (!npmVersion) throw new Error(`node-linux-${arch}@${lts}: its changelog names no npm version`);
    const npmTar = run(['npm', 'pack', '--silent', `npm@${npmVersion}`], { cwd: packs }).trim().split('\n').pop();
    // The official image's layout: /usr/local/{bin/node,include/node,share}, npm under /usr/local/lib/node_modules.
    const local = join(rootfs, 'usr/local');
    for (const part of ['bin', 'include', 'share']) run(['cp', '-a', join(nodeDir, part), local + '/']);
    const npmDir = join(local, 'lib/node_modules/npm');
    mkdirSync(npmDir, { recursive: true });
    run(['tar', '-xzf', join(packs, npmTar), '-C', npmDir, '--strip-components=1']);
    symlinkSync('../lib/node_modules/npm/bin/npm-cli.js', join(local, 'bin/npm'));
    symlinkSync('../lib/node_modules/npm/bin/npx-cli.js', join(local, 'bin/npx'));
    slimLikeDebian(rootfs, mirror);
    run(['chroot', rootfs, 'sh', '-c', 'groupadd --gid 1000 node && useradd --uid 1000 --gid node --shell /bin/bash --create-home node']);
    const label = `recipe ${STAND_IN_RECIPE}: debootstrap --variant=minbase ${DEBIAN_SUITE} + npm node-linux-${arch}@${lts} + npm@${npmVersion}`;
    log(`stand-in: importing as ${ref}`);
    const tar = spawnSync('tar', ['-C', rootfs, '--numeric-owner', '-cf', '-', '.'], { maxBuffer: 2 ** 31 });
    if (tar.status !== 0) throw new Error(`tar of the stand-in root failed: ${tar.stderr}`);
    run([...engine, 'import',
      '--change', 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin',
      '--change', `ENV NODE_VERSION=${lts}`,
      '--change', `LABEL ${STAND_IN_LABEL}="${label}"`,
      '--change', 'CMD ["node"]',
      '-', ref], { input: tar.stdout });
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/**
 * What debian:bookworm-slim does on top of a minbase root: no docs, man pages or locales; apt keeps no package
 * cache and no downloaded .deb after an install (its docker-clean settings); deb822 sources.
 */
function slimLikeDebian(rootfs, mirror) {
  const clean = 'rm -f /var/cache/apt/archives/*.deb /var/cache/apt/archives/partial/*.deb /var/cache/apt/*.bin || true';
  writeFileSync(join(rootfs, 'etc/apt/apt.conf.d/docker-clean'),
    `DPkg::Post-Invoke { "${clean}"; };\nAPT::Update::Post-Invoke { "${clean}"; };\nDir::Cache::pkgcache "";\nDir::Cache::srcpkgcache "";\n`);
  writeFileSync(join(rootfs, 'etc/apt/apt.conf.d/docker-autoremove-suggests'), 'Apt::AutoRemove::SuggestsImportant "false";\n');
  writeFileSync(join(rootfs, 'etc/apt/apt.conf.d/docker-no-languages'), 'Acquire::Languages "none";\n');
  writeFileSync(join(rootfs, 'etc/apt/apt.conf.d/docker-gzip-indexes'), 'Acquire::GzipIndexes "true";\n');
  const excludes = ['/usr/share/doc/*', '/usr/share/man/*', '/usr/share/groff/*', '/usr/share/info/*', '/usr/share/lintian/*', '/usr/share/linda/*', '/usr/share/locale/*'];
  writeFileSync(join(rootfs, 'etc/dpkg/dpkg.cfg.d/docker'), `${excludes.map((path) => `path-exclude ${path}`).join('\n')}\npath-include /usr/share/doc/*/copyright\n`);
  for (const dir of ['usr/share/man', 'usr/share/info', 'usr/share/locale', 'var/lib/apt/lists', 'var/cache/apt', 'var/log']) {
    const full = join(rootfs, dir);
    for (const entry of readdirSync(full)) rmSync(join(full, entry), { recursive: true, force: true });
  }
  const docs = join(rootfs, 'usr/share/doc');
  for (const entry of readdirSync(docs)) {
    for (const file of readdirSync(join(docs, entry))) if (file !== 'copyright') rmSync(join(docs, entry, file), { recursive: true, force: true });
  }
  rmSync(join(rootfs, 'etc/apt/sources.list'), { force: true });
  const security = mirror.replace(/\/debian\/?$/, '/debian-security');
  writeFileSync(join(rootfs, 'etc/apt/sources.list.d/debian.sources'), [
    `Types: deb\nURIs: ${mirror}\nSuites: ${DEBIAN_SUITE} ${DEBIAN_SUITE}-updates\nComponents: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n`,
    `Types: deb\nURIs: ${security}\nSuites: ${DEBIAN_SUITE}-security\nComponents: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n`,
  ].join('\n'));
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { ref, standIn } = ensureBaseImage();
  console.log(standIn ?? `${ref}: the official image`);
}
