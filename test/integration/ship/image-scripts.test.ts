/**
 * `npm run image:*` (C-SHIP-1): builds the right Containerfile from the repository root with podman (else docker),
 * tagged and labelled with the package version, and with the checkout's origin remote as the source label (a
 * public https URL, never credentials). A stand-in engine on PATH records what it was asked to do.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { IMAGE_NAMES, REPO_ROOT } from './support/image-harness.js';

const { version } = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string };
const bin = mkdtempSync(join(tmpdir(), 'cli-mcp-ship-engine-'));
const record = join(bin, 'calls');
for (const engine of ['podman', 'docker']) {
  writeFileSync(join(bin, engine), `#!/bin/sh\necho "${engine} $PWD $*" >> "${record}"\n`);
  chmodSync(join(bin, engine), 0o755);
}
afterAll(() => rmSync(bin, { recursive: true, force: true }));

function image(name: string, env: Record<string, string> = {}, extra: string[] = [], root = REPO_ROOT): { status: number | null; calls: string; stderr: string } {
  rmSync(record, { force: true });
  const result = spawnSync(process.execPath, [join(root, 'scripts/image.mjs'), name, ...extra], {
    cwd: join(root, 'docs'), encoding: 'utf8', env: { PATH: `${bin}:/usr/bin:/bin`, ...env },
  });
  let calls = '';
  try {
    calls = readFileSync(record, 'utf8');
  } catch {
    // the engine was never called
  }
  return { status: result.status, calls, stderr: result.stderr };
}

/** A checkout of the script and recipes in a scratch git repository whose `origin` is `remote` (none: no origin). */
function checkout(remote?: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'cli-mcp-ship-checkout-'));
  for (const path of ['scripts/image.mjs', 'package.json', ...IMAGE_NAMES.map((name) => `docker/Containerfile.${name}`)]) {
    mkdirSync(join(dir, path, '..'), { recursive: true });
    cpSync(join(REPO_ROOT, path), join(dir, path));
  }
  mkdirSync(join(dir, 'docs'));
  execFileSync('git', ['init', '-q', dir]);
  if (remote !== undefined) execFileSync('git', ['-C', dir, 'remote', 'add', 'origin', remote]);
  return dir;
}
const checkouts: string[] = [];
afterAll(() => checkouts.forEach((dir) => rmSync(dir, { recursive: true, force: true })));
const sourceArg = (remote?: string, extra: string[] = []): string | undefined => {
  const dir = checkout(remote);
  checkouts.push(dir);
  const { status, calls } = image('controller', {}, extra, dir);
  expect(status).toBe(0);
  return /--build-arg SOURCE_URL=(\S+)/.exec(calls)?.[1];
};

describe('scripts/image.mjs', () => {
  it.each(IMAGE_NAMES)('image:%s runs podman build of its docker/Containerfile from the repository root, tagged with the version', (name) => {
    const root = checkout();
    checkouts.push(root);
    const { status, calls } = image(name, {}, [], root);
    expect(status).toBe(0);
    expect(calls.trim()).toBe(`podman ${root} build -f docker/Containerfile.${name} -t cli-mcp-${name}:${version} --build-arg VERSION=${version} .`);
  });

  it('package.json runs the script for each image by its own name', () => {
    const { scripts } = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
    for (const name of IMAGE_NAMES) expect(scripts[`image:${name}`]).toBe(`node scripts/image.mjs ${name}`);
  });

  it('labels the image with the origin remote as a public https URL: credentials, query and .git dropped', () => {
    expect(sourceArg('https://deploy:s3cret@git.example.test/acme/cli-mcp.git?ref=x#y')).toBe('https://git.example.test/acme/cli-mcp');
    expect(sourceArg('git@github.example:acme/cli-mcp.git')).toBe('https://github.example/acme/cli-mcp');
    expect(sourceArg('ssh://git@git.example.test:2222/acme/cli-mcp.git')).toBe('https://git.example.test/acme/cli-mcp');
  });

  it('passes no SOURCE_URL without a public origin (none, a local path, file://), and lets the caller set one', () => {
    expect(sourceArg()).toBeUndefined();
    expect(sourceArg('/srv/git/cli-mcp')).toBeUndefined();
    expect(sourceArg('file:///srv/git/cli-mcp')).toBeUndefined();
    expect(sourceArg('https://git.example.test/acme/cli-mcp', ['--build-arg', 'SOURCE_URL=https://mirror.test/x'])).toBe('https://mirror.test/x');
  });

  it('uses CONTAINER_ENGINE and IMAGE_REGISTRY, and passes extra arguments before the context', () => {
    const { calls } = image('sandbox', { CONTAINER_ENGINE: 'docker', IMAGE_REGISTRY: 'quay.io/acme/' }, ['--platform', 'linux/arm64']);
    expect(calls).toContain(`docker ${REPO_ROOT.replace(/\/$/, '')} build -f docker/Containerfile.sandbox -t quay.io/acme/cli-mcp-sandbox:${version} --build-arg VERSION=${version} --platform linux/arm64 .`);
  });

  it('refuses an unknown image and says when no engine exists', () => {
    expect(image('nope')).toMatchObject({ status: 2, calls: '' });
    const none = spawnSync(process.execPath, [join(REPO_ROOT, 'scripts/image.mjs'), 'server'], { encoding: 'utf8', env: { PATH: '/nonexistent' } });
    expect(none.status).toBe(1);
    expect(none.stderr).toContain('neither podman nor docker');
  });
});
