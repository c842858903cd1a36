/**
 * C-SHIP-1, read from the recipes: pinned Node LTS bases, node-pty's toolchain wherever npm ci builds it, a
 * numeric non-root USER and OCI labels (version and licence from the package, the source only from the SOURCE_URL
 * build arg), the sandbox's tools for the target architecture with verified checksums.
 * The recipes from before issue 10 (fixtures/) must fail each check that names one of their bugs.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { AGENT_NODE_FLAGS } from '@cli-mcp/common';
import { parseContainerfile } from './support/containerfile.js';
import { IMAGE_NAMES, readRecipe, REPO_ROOT } from './support/image-harness.js';
import { baseImageProblems, runtimeProblems, sandboxToolProblems, toolchainProblems } from './support/recipe-checks.js';

const LTS = readFileSync(join(REPO_ROOT, '.ci/node-lts'), 'utf8').trim();
const manifest = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string; license: string; engines: { node: string } };
const SOURCE_URL = 'https://git.example.test/acme/cli-mcp-server';
const expected = { ...manifest, sourceUrl: SOURCE_URL };
const before = (image: string, issue = 10) => {
  const file = `test/integration/ship/fixtures/Containerfile.${image}.before-issue-${issue}`;
  return parseContainerfile(readFileSync(join(REPO_ROOT, file), 'utf8'), file);
};

describe('docker/Containerfile.*', () => {
  it.each(IMAGE_NAMES)('%s: every base is the node LTS CI tests on, npm ci has its toolchain, runtime USER and labels are right', (image) => {
    const stages = readRecipe(image, { SOURCE_URL });
    expect(baseImageProblems(stages, LTS)).toEqual([]);
    expect(toolchainProblems(stages)).toEqual([]);
    expect(runtimeProblems(stages[stages.length - 1]!, expected)).toEqual([]);
  });

  it.each(IMAGE_NAMES)('%s: the source label is only what the builder passes as SOURCE_URL (empty without it)', (image) => {
    const labels = (args: Record<string, string>) => readRecipe(image, args).at(-1)!.labels;
    expect(labels({}).get('org.opencontainers.image.source')).toBe('');
    expect(runtimeProblems(readRecipe(image).at(-1)!, expected)).toEqual(['label org.opencontainers.image.source is not the SOURCE_URL build arg']);
    expect(labels({ SOURCE_URL: 'https://other.test/x' }).get('org.opencontainers.image.source')).toBe('https://other.test/x');
    expect(labels({}).get('org.opencontainers.image.version')).toBe(manifest.version);
    expect(labels({}).get('org.opencontainers.image.licenses')).toBe(manifest.license);
  });

  it('sandbox: the ENTRYPOINT runs the agent with the Node flags every other launcher passes', () => {
    expect(readRecipe('sandbox').at(-1)!.entrypoint).toEqual(['node', ...AGENT_NODE_FLAGS, '/opt/sandbox-agent/dist/sandbox-agent/main.js']);
  });

  // Issue 22 item 6: the idle footprint of the Node processes is measured with these flags (docs/benchmarks.md, "Idle
  // memory of the Node processes"); an ENTRYPOINT without them idles 10–25 MB higher.
  it.each([
    ['server', ['node', '--max-semi-space-size=1', '--v8-pool-size=1', '/opt/cli-mcp-server/bin/cli-mcp-server.js']],
    ['controller', ['node', '--max-semi-space-size=1', '--v8-pool-size=1', '/opt/sandbox-controller/bin/sandbox-controller.js']],
    ['egress', ['node', '--max-semi-space-size=1', '/opt/cli-mcp-egress/bin/cli-mcp-egress.js']],
  ] as const)('%s: the ENTRYPOINT runs node with the young generation and worker pool its idle RSS was measured with', (image, entrypoint) => {
    expect(readRecipe(image).at(-1)!.entrypoint).toEqual(entrypoint);
  });

  // Start-up's parser and compiler memory goes back to the system rather than staying between live malloc blocks:
  // ~9 MB (controller) and ~5 MB (server) of idle RSS. Not in the gateway, whose 64 KiB socket reads would each
  // become an mmap (docs/benchmarks.md "Images").
  it.each([
    ['server', 'glibc.malloc.mmap_threshold=32768'],
    ['controller', 'glibc.malloc.mmap_threshold=32768'],
    ['egress', undefined],
  ] as const)('%s: glibc malloc tunables of the image: %s', (image, tunables) => {
    expect(readRecipe(image).at(-1)!.env.get('GLIBC_TUNABLES')).toBe(tunables);
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

describe('project URLs', () => {
  it('no recipe, manifest or package field points at github.com/codeready-toolchain/cli-mcp-server (the Go project\'s name)', () => {
    const files = ['package.json', ...readdirSync(join(REPO_ROOT, 'docker')).map((name) => `docker/${name}`), ...readdirSync(join(REPO_ROOT, 'deploy'), { recursive: true, encoding: 'utf8' }).filter((p) => p.endsWith('.yaml') || p.endsWith('.env')).map((p) => `deploy/${p}`)];
    expect(files.length).toBeGreaterThan(10);
    expect(files.filter((file) => readFileSync(join(REPO_ROOT, file), 'utf8').includes('codeready-toolchain/cli-mcp-server'))).toEqual([]);
    const manifestFields = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as Record<string, unknown>;
    // A publisher sets these for its own repository (docs/operations.md "Publishing the package").
    expect(Object.keys(manifestFields).filter((key) => ['repository', 'homepage', 'bugs'].includes(key))).toEqual([]);
  });
});

describe('the recipes from before issue 10 fail the checks that name their bugs', () => {
  it('both used Node 20 (end of life since 2026-04-30), unpinned', () => {
    expect(baseImageProblems(before('server'), LTS)).toContain(`runtime: base docker.io/library/node:20-bookworm-slim is not the official node image pinned to a full version`);
    expect(baseImageProblems(before('sandbox'), LTS).length).toBeGreaterThan(0);
  });

  it('the server ran npm ci without python3, make and g++ (node-pty has no Linux prebuild)', () => {
    expect(toolchainProblems(before('server'))).toContain('build: npm ci builds node-pty but python3, make, g++ are not installed before it');
  });

  it('the sandbox downloaded an amd64 kubectl without a checksum and had no yq', () => {
    const stages = before('sandbox');
    expect(sandboxToolProblems(stages[stages.length - 1]!)).toEqual([
      'yq is not installed', 'kubectl is not downloaded for ${TARGETARCH}', 'an architecture is written out', 'the kubectl download is not checksum-verified',
    ]);
  });

  it('neither labelled its image', () => {
    const stages = before('server');
    expect(runtimeProblems(stages[stages.length - 1]!, expected)).toEqual(expect.arrayContaining([
      'label org.opencontainers.image.source is not the SOURCE_URL build arg', `label org.opencontainers.image.version is not ${manifest.version}`,
      'label org.opencontainers.image.licenses is not Apache-2.0',
    ]));
  });
});

describe('the sandbox recipe from before issue 22 fails the node-pty checks (item 5)', () => {
  it('compiled node-pty with headers node-gyp downloads from nodejs.org, and a failed compile surfaced only later as "Cannot find module"', () => {
    expect(toolchainProblems(before('sandbox', 22))).toEqual([
      'build: npm ci builds node-pty without npm_config_nodedir=/usr/local (node-gyp would download headers)',
      'build: npm ci is not followed by a check that fails naming node-pty',
      'build: npm ci is not followed by a check that fails naming @cli-mcp/non-dumpable',
      'deps: npm ci builds node-pty without npm_config_nodedir=/usr/local (node-gyp would download headers)',
      'deps: npm ci is not followed by a check that fails naming node-pty',
      'deps: npm ci is not followed by a check that fails naming @cli-mcp/non-dumpable',
    ]);
  });
});
