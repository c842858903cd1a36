/**
 * docs/requirements.md explains every requirement id the repository cites (issue 10), so a reader of the
 * repository alone can follow each `C-…` citation in code, tests, manifests and docs.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from './support/image-harness.js';

const ID = /\bC-[A-Z0-9]+-\d+\b/g;
const SKIP = new Set(['node_modules', 'dist', '.git', '.ci-cache', 'coverage', '.cli-mcp', 'fixtures']);

function cited(dir: string): Map<string, string> {
  const found = new Map<string, string>();
  for (const name of readdirSync(dir)) {
    if (SKIP.has(name)) continue;
    const path = join(dir, name);
    if (statSync(path).isDirectory()) {
      for (const [id, where] of cited(path)) if (!found.has(id)) found.set(id, where);
    } else if (/\.(ts|mjs|js|md|ya?ml|json)$|^Containerfile|^run$/.test(name) && !path.endsWith('docs/requirements.md') && name !== 'package-lock.json') {
      for (const [id] of readFileSync(path, 'utf8').matchAll(ID)) if (!found.has(id)) found.set(id, path.slice(REPO_ROOT.length));
    }
  }
  return found;
}

describe('docs/requirements.md', () => {
  it('defines every requirement id cited in the repository', () => {
    const defined = new Set([...readFileSync(join(REPO_ROOT, 'docs/requirements.md'), 'utf8').matchAll(/^\| (C-[A-Z0-9]+-\d+) \|/gm)].map(([, id]) => id));
    const citations = cited(REPO_ROOT);
    expect(citations.size).toBeGreaterThan(40);
    expect([...citations].filter(([id]) => !defined.has(id)).map(([id, where]) => `${id} (cited in ${where})`)).toEqual([]);
  });
});
