/**
 * scripts/ci-summary.mjs (C-SHIP-4): the two suite runs of .ci/run (machine Node, images' LTS) end in ONE plain
 * "N passed, N failed, N skipped" line, last; a run without a report, or a suite that failed to load, fails it, and
 * under CI=true so does a skipped test (C-TEST-1), named.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from './support/image-harness.js';

const dir = mkdtempSync(join(tmpdir(), 'cli-mcp-ship-summary-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const report = (name: string, body: object): string => {
  writeFileSync(join(dir, name), JSON.stringify(body));
  return join(dir, name);
};
// CI as each case sets it, never as this run has it (.ci/run sets CI=true).
const summarise = (files: string[], ci?: 'true') => {
  const env = { ...process.env };
  delete env['CI'];
  if (ci) env['CI'] = ci;
  return spawnSync(process.execPath, [join(REPO_ROOT, 'scripts/ci-summary.mjs'), ...files], { encoding: 'utf8', env });
};

describe('scripts/ci-summary.mjs', () => {
  it('adds up both runs into one closing line and exits 0 when nothing failed', () => {
    const a = report('a.json', { numPassedTests: 10, numFailedTests: 0, numPendingTests: 2, testResults: [] });
    const b = report('b.json', { numPassedTests: 9, numFailedTests: 0, numPendingTests: 1, testResults: [] });
    const result = summarise([a, b]);
    expect(result.status).toBe(0);
    expect(result.stdout).toBe('19 passed, 0 failed, 3 skipped\n');
  });

  it('counts a missing report and a suite that failed to load as failures', () => {
    const a = report('c.json', { numPassedTests: 5, numFailedTests: 0, testResults: [{ status: 'failed', assertionResults: [] }] });
    const result = summarise([a, join(dir, 'absent.json')]);
    expect(result.status).toBe(1);
    expect(result.stdout).toBe('5 passed, 2 failed, 0 skipped\n');
    expect(result.stderr).toContain('absent.json: no test report');
  });

  it('counts a file that failed after its tests passed (a hook\'s error) as a failure, once; a failed test only as itself', () => {
    const a = report('d.json', {
      numPassedTests: 7, numFailedTests: 1,
      testResults: [
        { status: 'failed', message: 'Class constructor Client cannot be invoked without \'new\'', assertionResults: [{ status: 'passed' }, { status: 'passed' }] },
        { status: 'failed', assertionResults: [{ status: 'passed' }, { status: 'failed' }] },
      ],
    });
    const result = summarise([a]);
    expect(result.status).toBe(1);
    expect(result.stdout).toBe('7 passed, 2 failed, 0 skipped\n');
  });

  it('under CI=true counts every skipped or todo test as a failure too, and names each one', () => {
    const body = {
      numPassedTests: 4, numFailedTests: 0, numPendingTests: 1, numTodoTests: 1,
      testResults: [{
        name: join(dir, 'gated.test.ts'), status: 'passed',
        assertionResults: [
          { status: 'passed', fullName: 'ran' },
          { status: 'skipped', fullName: 'kubectl conformance lists pods' },
          { status: 'todo', fullName: 'later' },
        ],
      }],
    };
    const a = report('e.json', body);
    const outside = summarise([a]);
    expect(outside.status).toBe(0);
    expect(outside.stdout).toBe('4 passed, 0 failed, 2 skipped\n');
    const ci = summarise([a], 'true');
    expect(ci.status).toBe(1);
    expect(ci.stdout).toBe('4 passed, 2 failed, 2 skipped\n');
    expect(ci.stderr).toContain('under CI=true a skipped test is a failure');
    expect(ci.stderr).toContain('gated.test.ts › kubectl conformance lists pods');
    expect(ci.stderr).toContain('› later');
    expect(ci.stderr).not.toContain('› ran');
  });
});
