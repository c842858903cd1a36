import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { isTestSupport } from './build-output.js';
import { listTree } from './image-root.js';

/**
 * What a Node app folder of an assembled image holds against C-SHIP-1 "production files only": sources, test
 * support or libs/testing among its own files, and node_modules other than exactly the lockfile's production
 * closure without optional packages (`npm ci --omit=dev --omit=optional`). Returns the problems and the installed
 * top-level packages.
 */
export function productionFileProblems(appDir: string, lockfile: string): { problems: string[]; installed: ReadonlySet<string> } {
  const ours = listTree(appDir).filter((path) => !path.startsWith('node_modules/'));
  const problems = ours.filter((path) => path.endsWith('.ts') || isTestSupport(path) || path.startsWith('dist/libs/testing/')).map((path) => `not a production file: ${path}`);
  const installed = new Set(listTree(join(appDir, 'node_modules')).map((path) => path.split('/').slice(0, path.startsWith('@') ? 2 : 1).join('/')));
  const lock = JSON.parse(readFileSync(lockfile, 'utf8')) as { packages: Record<string, { dev?: boolean; optional?: boolean }> };
  const topLevel = Object.entries(lock.packages)
    .filter(([path]) => /^node_modules\/(@[^/]+\/)?[^/@]+$/.test(path))
    .map(([path, entry]) => ({ name: path.slice('node_modules/'.length), ...entry }));
  for (const p of topLevel) {
    if (p.dev === true && installed.has(p.name)) problems.push(`dev dependency installed: ${p.name}`);
    if (p.dev !== true && p.optional !== true && !installed.has(p.name)) problems.push(`production dependency missing: ${p.name}`);
  }
  return { problems, installed };
}
