import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const PACKAGE_NAME = 'cli-mcp-server';
const SHA = /^[0-9a-f]{7,40}$/;

/**
 * `<package version>+<8-char git sha>` of the server and the controller (C-MCP-1; Go used the commit, 8 chars). The sha comes from
 * `CLI_MCP_GIT_SHA` (set by image builds, which have no `.git`), else from the checkout the server runs from;
 * without either, the package version alone.
 */
export function resolveVersion(moduleUrl: string, env: Readonly<Record<string, string | undefined>>): string {
  const root = findPackageRoot(dirname(fileURLToPath(moduleUrl)));
  if (!root) return '0.0.0-dev';
  const { version } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version?: string };
  const sha = (env.CLI_MCP_GIT_SHA?.trim().toLowerCase() || readGitSha(root))?.slice(0, 8);
  return sha && SHA.test(sha) ? `${version ?? '0.0.0'}+${sha}` : (version ?? '0.0.0');
}

function findPackageRoot(start: string): string | undefined {
  for (let dir = start; ; dir = dirname(dir)) {
    const file = join(dir, 'package.json');
    if (existsSync(file)) {
      try {
        if ((JSON.parse(readFileSync(file, 'utf8')) as { name?: string }).name === PACKAGE_NAME) return dir;
      } catch {
        // not our package.json; keep looking
      }
    }
    if (dirname(dir) === dir) return undefined;
  }
}

/** Reads HEAD without running git (it may not be installed): a ref file, packed-refs, or a detached sha. */
export function readGitSha(root: string): string | undefined {
  try {
    const gitDir = join(root, '.git');
    const head = readFileSync(join(gitDir, 'HEAD'), 'utf8').trim();
    if (!head.startsWith('ref: ')) return SHA.test(head) ? head : undefined;
    const ref = head.slice('ref: '.length);
    const refFile = join(gitDir, ref);
    if (existsSync(refFile)) return readFileSync(refFile, 'utf8').trim();
    const packed = join(gitDir, 'packed-refs');
    if (!existsSync(packed)) return undefined; // a branch without commits
    const line = readFileSync(packed, 'utf8')
      .split('\n')
      .find((entry) => entry.endsWith(` ${ref}`));
    return line?.split(' ')[0];
  } catch {
    return undefined;
  }
}
