import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { readGitSha, resolveVersion } from './version.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function checkout(head?: string, refs: Record<string, string> = {}): { root: string; moduleUrl: string } {
  const root = mkdtempSync(join(tmpdir(), 'cli-mcp-version-'));
  dirs.push(root);
  writeFileSync(join(root, 'package.json'), JSON.stringify({ name: 'cli-mcp-server', version: '1.2.3' }));
  mkdirSync(join(root, 'dist/apps/mcp-server/src'), { recursive: true });
  if (head !== undefined) {
    mkdirSync(join(root, '.git/refs/heads'), { recursive: true });
    writeFileSync(join(root, '.git/HEAD'), head);
    for (const [file, content] of Object.entries(refs)) writeFileSync(join(root, '.git', file), content);
  }
  return { root, moduleUrl: pathToFileURL(join(root, 'dist/apps/mcp-server/src/main.js')).href };
}

describe(resolveVersion.name, () => {
  const sha = '0123456789abcdef0123456789abcdef01234567';

  it('is the package version when no sha is known', () => {
    expect(resolveVersion(checkout().moduleUrl, {})).toBe('1.2.3');
    expect(resolveVersion(checkout('ref: refs/heads/main\n').moduleUrl, {})).toBe('1.2.3');
  });

  it('adds 8 chars of the checkout sha, from a ref file, packed-refs or a detached HEAD', () => {
    expect(resolveVersion(checkout('ref: refs/heads/main\n', { 'refs/heads/main': `${sha}\n` }).moduleUrl, {})).toBe('1.2.3+01234567');
    expect(resolveVersion(checkout('ref: refs/heads/main\n', { 'packed-refs': `# pack\n${sha} refs/heads/main\n` }).moduleUrl, {})).toBe('1.2.3+01234567');
    expect(resolveVersion(checkout(`${sha}\n`).moduleUrl, {})).toBe('1.2.3+01234567');
  });

  it('prefers CLI_MCP_GIT_SHA (image builds) and ignores junk', () => {
    expect(resolveVersion(checkout().moduleUrl, { CLI_MCP_GIT_SHA: 'ABCDEF1234567' })).toBe('1.2.3+abcdef12');
    expect(resolveVersion(checkout().moduleUrl, { CLI_MCP_GIT_SHA: 'not a sha' })).toBe('1.2.3');
  });

  it('reads nothing outside a checkout', () => {
    expect(readGitSha(checkout().root)).toBeUndefined();
  });
});
