#!/usr/bin/env node
// `node scripts/sbom.mjs [--omit-optional] > sbom.cdx.json`: the CycloneDX SBOM of the lockfile's production
// dependencies, for images whose bundles hide their packages from scanners (docs/operations.md, "Images").
// `npm sbom` writes the document; its own `--omit=dev` is not used because it drops production packages that
// something else also names as a peer (npm 11.19: zod, rxjs, @nestjs/core and five more of our direct
// dependencies went missing). So the complete SBOM is filtered here by the lockfile's own flags: a component stays
// when at least one of its lockfile entries is neither dev nor (with --omit-optional) optional.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

const omitOptional = process.argv.includes('--omit-optional');
const lock = JSON.parse(readFileSync('package-lock.json', 'utf8'));
const kept = new Set();
for (const [path, entry] of Object.entries(lock.packages)) {
  // A link (`file:` dependency) is this repository's own code, native/non-dumpable: part of the main component.
  if (!path.startsWith('node_modules/') || entry.link === true || entry.dev === true || (omitOptional && entry.optional === true)) continue;
  kept.add(`${path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length)}@${entry.version}`);
}
const bom = JSON.parse(execFileSync('npm', ['sbom', '--package-lock-only', '--sbom-format', 'cyclonedx'], { encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 }));
const name = (component) => `${component.group ? `${component.group}/` : ''}${component.name}@${component.version}`;
bom.components = bom.components.filter((component) => kept.has(name(component)));
const refs = new Set([bom.metadata?.component?.['bom-ref'], ...bom.components.map((component) => component['bom-ref'])]);
bom.dependencies = (bom.dependencies ?? []).filter((dependency) => refs.has(dependency.ref)).map((dependency) => ({ ...dependency, dependsOn: (dependency.dependsOn ?? []).filter((ref) => refs.has(ref)) }));
process.stdout.write(`${JSON.stringify(bom, null, 2)}\n`);
