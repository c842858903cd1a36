/**
 * `npm run image:*` (C-SHIP-1): builds the right Containerfile from the repository root with podman (else docker),
 * tagged and labelled with the package version. A stand-in engine on PATH records what it was asked to do.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from './support/image-harness.js';

const { version } = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string };
const bin = mkdtempSync(join(tmpdir(), 'cli-mcp-ship-engine-'));
const record = join(bin, 'calls');
for (const engine of ['podman', 'docker']) {
  writeFileSync(join(bin, engine), `#!/bin/sh\necho "${engine} $PWD $*" >> "${record}"\n`);
  chmodSync(join(bin, engine), 0o755);
}
afterAll(() => rmSync(bin, { recursive: true, force: true }));

function image(name: string, env: Record<string, string> = {}, extra: string[] = []): { status: number | null; calls: string; stderr: string } {
  rmSync(record, { force: true });
  const result = spawnSync(process.execPath, [join(REPO_ROOT, 'scripts/image.mjs'), name, ...extra], {
    cwd: join(REPO_ROOT, 'docs'), encoding: 'utf8', env: { PATH: `${bin}:/usr/bin:/bin`, ...env },
  });
  let calls = '';
  try {
    calls = readFileSync(record, 'utf8');
  } catch {
    // the engine was never called
  }
  return { status: result.status, calls, stderr: result.stderr };
}

describe('scripts/image.mjs', () => {
  it.each(['server', 'sandbox'])('image:%s runs podman build of docker/Containerfile.%s from the repository root, tagged with the version', (name) => {
    const { status, calls } = image(name);
    expect(status).toBe(0);
    expect(calls.trim()).toBe(`podman ${REPO_ROOT.replace(/\/$/, '')} build -f docker/Containerfile.${name} -t cli-mcp-${name}:${version} --build-arg VERSION=${version} .`);
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
