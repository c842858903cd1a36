import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, relative } from 'node:path';
import { promisify } from 'node:util';
import { readIgnore } from '../../../../scripts/images-build.mjs';
import type { Stage } from './containerfile.js';

const run = promisify(execFile);
const COMPLETE = '.cli-mcp-ship-complete';

/**
 * Runs a dependency stage the way the build would (C-SHIP-2): its `npm ci …` and `node scripts/sbom.mjs …` RUN
 * lines, verbatim (with the checks chained after them), in a scratch folder holding what the stage COPYs from the
 * build context (package.json, the lockfile, the script, native/ with .dockerignore applied) — offline, from the npm cache. Results are reused per
 * (copied files, RUN lines, Node version), so repeated runs cost nothing; a stage with other RUN lines (apt-get:
 * the toolchain this machine already has) keeps only these.
 * Returns the folder that stands for the stage's WORKDIR.
 */
export async function installStage(stage: Stage, repoRoot: string): Promise<string> {
  const npmLines = stage.runs.filter((line) => line.startsWith('npm ci') || line.startsWith('node scripts/sbom.mjs'));
  if (npmLines.length === 0) throw new Error(`stage ${stage.name ?? '?'} runs neither "npm ci" nor scripts/sbom.mjs; this check cannot stand in for it`);
  // Context file → its place relative to the stage's WORKDIR.
  const inputs = stage.copies.filter((copy) => copy.from === undefined).flatMap((copy) =>
    copy.sources.flatMap((source) => contextFiles(repoRoot, source, copy.destIsDir ? join(relative(stage.workdir, copy.dest), basename(source)) : relative(stage.workdir, copy.dest))));
  const key = createHash('sha256')
    .update(inputs.map(([source, target]) => `${target}\0${readFileSync(join(repoRoot, source), 'utf8')}`).join('\0'))
    .update(npmLines.join('\n'))
    .update(process.version)
    .digest('hex')
    .slice(0, 16);
  // A cache, not a test's temp: under node_modules/.cache (as build tools keep theirs), so `npm ci` clears it with
  // the lockfile it depends on, and no test file's leftovers check counts it (C-TEST-1).
  const cache = join(repoRoot, 'node_modules', '.cache', 'cli-mcp-ship-stages');
  mkdirSync(cache, { recursive: true });
  const final = join(cache, key);
  if (existsSync(join(final, COMPLETE))) return final;
  const scratch = mkdtempSync(join(cache, 'tmp-'));
  try {
    for (const [source, target] of inputs) {
      mkdirSync(dirname(join(scratch, target)), { recursive: true });
      copyFileSync(join(repoRoot, source), join(scratch, target));
    }
    for (const line of npmLines) {
      const offline = line.replace(/^npm ci/, 'npm ci --offline');
      await run('bash', ['-euo', 'pipefail', '-c', offline], { cwd: scratch, timeout: 300_000, maxBuffer: 16 * 1024 * 1024 }).catch((error: { stderr?: string }) => {
        throw new Error(`stage ${stage.name ?? '?'}: "${line}" failed:\n${error.stderr ?? String(error)}`);
      });
    }
    writeFileSync(join(scratch, COMPLETE), `${npmLines.join('\n')}\n`);
    if (existsSync(join(final, COMPLETE))) {
      // A parallel test file finished the same stage first; its copy is as good as ours.
      rmSync(scratch, { recursive: true, force: true });
    } else {
      rmSync(final, { recursive: true, force: true });
      renameSync(scratch, final);
    }
  } catch (error) {
    rmSync(scratch, { recursive: true, force: true });
    throw error;
  }
  return final;
}

/** The context files a COPY of `source` to `target` brings, file by file; a directory as the engine sends it. */
function contextFiles(repoRoot: string, source: string, target: string): Array<readonly [string, string]> {
  if (!statSync(join(repoRoot, source)).isDirectory()) return [[source, target]];
  const ignored = readIgnore(join(repoRoot, '.dockerignore'));
  return readdirSync(join(repoRoot, source)).sort()
    .filter((name) => !ignored(join(source, name)))
    .flatMap((name) => contextFiles(repoRoot, join(source, name), join(target, name)));
}
