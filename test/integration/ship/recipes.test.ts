/**
 * C-SHIP-1, read from the recipes: pinned Node LTS bases, node-pty's toolchain wherever npm ci builds it, a
 * numeric non-root USER and OCI labels, the sandbox's tools for the target architecture with verified checksums.
 * The recipes from before issue 10 (fixtures/) must fail each check that names one of their bugs.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseContainerfile } from './support/containerfile.js';
import { readRecipe, REPO_ROOT } from './support/image-harness.js';
import { baseImageProblems, runtimeProblems, sandboxToolProblems, toolchainProblems } from './support/recipe-checks.js';

const LTS = readFileSync(join(REPO_ROOT, '.ci/node-lts'), 'utf8').trim();
const manifest = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string; license: string; engines: { node: string } };
const before = (image: string) => {
  const file = `test/integration/ship/fixtures/Containerfile.${image}.before-issue-10`;
  return parseContainerfile(readFileSync(join(REPO_ROOT, file), 'utf8'), file);
};

describe('docker/Containerfile.*', () => {
  it.each(['server', 'sandbox'] as const)('%s: every base is node %s (the LTS CI tests on), npm ci has its toolchain, runtime USER and labels are right', (image) => {
    const stages = readRecipe(image);
    expect(baseImageProblems(stages, LTS)).toEqual([]);
    expect(toolchainProblems(stages)).toEqual([]);
    expect(runtimeProblems(stages[stages.length - 1]!, manifest)).toEqual([]);
  });

  it('sandbox: bash, curl, jq, yq from Debian; kubectl for TARGETARCH with a verified checksum', () => {
    const stages = readRecipe('sandbox');
    expect(sandboxToolProblems(stages[stages.length - 1]!)).toEqual([]);
  });

  it('the tested LTS is an even (LTS) Node major that package.json engines admit', () => {
    expect(Number(LTS.split('.')[0]) % 2).toBe(0);
    expect(manifest.engines.node).toMatch(/>=\s*24|\^24/);
  });
});

describe('the recipes from before issue 10 fail the checks that name their bugs', () => {
  it('both used Node 20 (end of life since 2026-04-30), unpinned', () => {
    expect(baseImageProblems(before('server'), LTS)).toContain(`runtime: base docker.io/library/node:20-bookworm-slim is not the official node image pinned to a full version`);
    expect(baseImageProblems(before('sandbox'), LTS).length).toBeGreaterThan(0);
  });

  it('the server ran npm ci without python3, make and g++ (node-pty has no Linux prebuild)', () => {
    expect(toolchainProblems(before('server'))).toEqual(['build: npm ci builds node-pty but python3, make, g++ are not installed before it']);
  });

  it('the sandbox downloaded an amd64 kubectl without a checksum and had no yq', () => {
    const stages = before('sandbox');
    expect(sandboxToolProblems(stages[stages.length - 1]!)).toEqual([
      'yq is not installed', 'kubectl is not downloaded for ${TARGETARCH}', 'an architecture is written out', 'the kubectl download is not checksum-verified',
    ]);
  });

  it('neither labelled its image', () => {
    const stages = before('server');
    expect(runtimeProblems(stages[stages.length - 1]!, manifest)).toEqual(expect.arrayContaining(['label org.opencontainers.image.source missing']));
  });
});
