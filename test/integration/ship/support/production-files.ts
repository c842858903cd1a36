import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { isTestSupport } from './build-output.js';
import { listTree } from './image-root.js';

/**
 * What a bundled Node app folder of an image holds against C-SHIP-1 "production files only" and issue 22 item 6
 * "only what runs": no sources, test support or libs/testing; no node_modules at all (the bundle carries its
 * dependencies' code); instead a CycloneDX SBOM (`sbom.cdx.json`) naming every top-level production dependency of
 * the lockfile at its locked version, without dev or optional packages (nor links: our own code in native/). Returns the problems and the SBOM's
 * package names.
 */
export function productionFileProblems(appDir: string, lockfile: string): { problems: string[]; sbom: ReadonlySet<string> } {
  const ours = listTree(appDir);
  const problems = ours.filter((path) => path.endsWith('.ts') || isTestSupport(path) || path.startsWith('dist/libs/testing/')).map((path) => `not a production file: ${path}`);
  if (existsSync(join(appDir, 'node_modules'))) problems.push('node_modules present: the bundle loads none of it');
  const sbomFile = join(appDir, 'sbom.cdx.json');
  if (!existsSync(sbomFile)) return { problems: [...problems, 'no sbom.cdx.json'], sbom: new Set() };
  const bom = JSON.parse(readFileSync(sbomFile, 'utf8')) as { bomFormat?: string; components?: Array<{ name: string; group?: string; version: string }> };
  if (bom.bomFormat !== 'CycloneDX') problems.push(`sbom.cdx.json is not CycloneDX (bomFormat ${bom.bomFormat})`);
  const names = (bom.components ?? []).map((c) => (c.group ? `${c.group}/${c.name}` : c.name));
  const listed = new Set((bom.components ?? []).map((c, i) => `${names[i]}@${c.version}`));
  const lock = JSON.parse(readFileSync(lockfile, 'utf8')) as { packages: Record<string, { version?: string; dev?: boolean; optional?: boolean; link?: boolean }> };
  for (const [path, entry] of Object.entries(lock.packages)) {
    if (!/^node_modules\/(@[^/]+\/)?[^/@]+$/.test(path)) continue;
    // A link is a file: dependency, this repository's own code (native/non-dumpable), not a third party's package.
    if (entry.link === true) continue;
    const name = path.slice('node_modules/'.length);
    if (entry.dev === true && listed.has(`${name}@${entry.version}`)) problems.push(`SBOM lists a dev dependency: ${name}`);
    if (entry.dev !== true && entry.optional !== true && !listed.has(`${name}@${entry.version}`)) problems.push(`SBOM misses ${name}@${entry.version}`);
  }
  return { problems, sbom: new Set(names) };
}
