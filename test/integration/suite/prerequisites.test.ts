/**
 * C-TEST-1: the one gate for missing prerequisites (test/support/prerequisites.ts) skips with the printed reason on
 * a developer machine, and under CI=true turns the same gap into a failure that names it; a gated block never runs.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const REPO = join(import.meta.dirname, '..', '..', '..');
const VITEST = join(REPO, 'node_modules', 'vitest', 'vitest.mjs');

interface Report {
  testResults: Array<{ assertionResults: Array<{ fullName: string; status: string; failureMessages: string[] }> }>;
}

const dir = mkdtempSync(join(tmpdir(), 'gated-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The fixture run with CI set or unset: exit code, output, and each test's status and failure by full name. */
async function runFixture(ci: boolean) {
  const output = join(dir, `report-${ci}.json`);
  const env = { ...process.env };
  delete env['CI'];
  if (ci) env['CI'] = 'true';
  const run = spawn(process.execPath, [VITEST, 'run', '--config', 'test/support/gated/vitest.config.ts', '--reporter=default', '--reporter=json', `--outputFile=${output}`], {
    cwd: REPO, stdio: ['ignore', 'pipe', 'pipe'], env,
  });
  let text = '';
  run.stdout!.on('data', (chunk: Buffer) => (text += chunk.toString()));
  run.stderr!.on('data', (chunk: Buffer) => (text += chunk.toString()));
  const code = await new Promise<number | null>((resolve) => run.once('close', resolve));
  const tests = (JSON.parse(readFileSync(output, 'utf8')) as Report).testResults.flatMap((r) => r.assertionResults);
  const byName = new Map(tests.map((t) => [t.fullName, t]));
  return { code, text, byName };
}

describe('the prerequisite gate', () => {
  it('outside CI: skips a block (without running its body) or a test that misses a tool, prints why, and runs the ready ones', async () => {
    const { code, text, byName } = await runFixture(false);
    expect(code, text).toBe(0);
    expect(byName.get('ready block runs')?.status).toBe('passed');
    expect(byName.get('single tests ready test')?.status).toBe('passed');
    expect(byName.get('block missing a tool skipped: frobctl is not installed (spawnSync frobctl ENOENT)')?.status).toBe('skipped');
    expect(byName.has('block missing a tool would need frobctl')).toBe(false);
    expect(byName.get('single tests test missing a tool')?.status).toBe('skipped');
    expect(text).toContain('[block missing a tool] skipped: frobctl is not installed (spawnSync frobctl ENOENT)');
    expect(text).toContain('[test missing a tool] skipped: grobctl is not installed');
    expect(text).not.toContain('a gated');
  });

  it('under CI=true: fails what misses a tool, naming the problem, never runs its body, and skips nothing', async () => {
    const { code, text, byName } = await runFixture(true);
    expect(code, text).toBe(1);
    expect(byName.get('ready block runs')?.status).toBe('passed');
    expect(byName.get('single tests ready test')?.status).toBe('passed');
    const block = byName.get('block missing a tool has what it needs under CI');
    expect(block?.status).toBe('failed');
    expect(block?.failureMessages.join('\n')).toContain('cannot run under CI: frobctl is not installed (spawnSync frobctl ENOENT)');
    const single = byName.get('single tests test missing a tool');
    expect(single?.status).toBe('failed');
    expect(single?.failureMessages.join('\n')).toContain('cannot run under CI: grobctl is not installed');
    expect(byName.has('block missing a tool would need frobctl')).toBe(false);
    expect([...byName.values()].filter((t) => t.status === 'skipped')).toEqual([]);
    expect(text).not.toContain('a gated');
  });
});
