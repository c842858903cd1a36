/**
 * `engines` stays honest (C-SHIP-4): the Node versions package.json admits are admitted by every production
 * dependency that declares engines (with the named exceptions below), and include both Node versions CI runs the
 * suite on — the machine's and the images' LTS (.ci/node-lts).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import semver from 'semver';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from './support/image-harness.js';

const manifest = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { engines: { node: string } };
const lock = JSON.parse(readFileSync(join(REPO_ROOT, 'package-lock.json'), 'utf8')) as { packages: Record<string, { version: string; dev?: boolean; engines?: { node?: string } | string[] }> };

/** Declared ≥ 22, loaded only on paths this project never takes; the suite passing on Node 20 shows it. */
const NOT_LOADED: Record<string, string> = {
  'file-type': "only @nestjs/common's FileTypeValidator imports it, lazily; no route validates uploads",
  cookie: "only light-my-request's inject() parses cookies; the servers never inject requests",
};

describe('package.json engines', () => {
  it('admits the Node running this suite and the images\' LTS', () => {
    expect(semver.satisfies(process.version, manifest.engines.node)).toBe(true);
    expect(semver.satisfies(readFileSync(join(REPO_ROOT, '.ci/node-lts'), 'utf8').trim(), manifest.engines.node)).toBe(true);
  });

  it('admits no Node version a production dependency rules out', () => {
    const conflicts = Object.entries(lock.packages)
      .filter(([path, entry]) => path.startsWith('node_modules/') && entry.dev !== true && !Array.isArray(entry.engines) && entry.engines?.node)
      .map(([path, entry]) => ({ name: path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length), version: entry.version, node: (entry.engines as { node: string }).node }))
      .filter(({ name, node }) => !(name in NOT_LOADED) && semver.validRange(node) !== null && !semver.subset(manifest.engines.node, node))
      .map(({ name, version, node }) => `${name}@${version} wants node ${node}`);
    expect(conflicts).toEqual([]);
  });
});
