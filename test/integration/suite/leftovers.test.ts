import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { processRef, signalProcess } from '@cli-mcp/testing';
import { afterAll, describe, expect, it } from 'vitest';

const REPO = join(import.meta.dirname, '..', '..', '..');
const VITEST = join(REPO, 'node_modules', 'vitest', 'vitest.mjs');
// A number no other process on the machine sleeps for: how the fixtures' leaks are found and removed.
const SECONDS = String(7000 + Math.floor(Math.random() * 2000));

interface Report {
  testResults: Array<{ name: string; status: string; message: string }>;
}

function sleepers(): number[] {
  return readdirSync('/proc').filter((name) => /^\d+$/.test(name)).map(Number).filter((pid) => {
    try {
      return new RegExp(`^sleep\\x00${SECONDS}(\\.5)?\\x00$`).test(readFileSync(`/proc/${pid}/cmdline`, 'latin1'));
    } catch {
      return false;
    }
  });
}

// C-TEST-1: the check that fails a file for what it leaves behind must itself fail a leaky file.
describe('the leftovers check of every test file', () => {
  const dir = mkdtempSync(join(tmpdir(), 'leftovers-'));
  afterAll(() => {
    for (const pid of sleepers()) signalProcess(processRef(pid), 'SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  });

  it('fails the files that leave a process, a listening socket or a temp dir, and passes the clean one', async () => {
    const output = join(dir, 'report.json');
    const run = spawn(process.execPath, [VITEST, 'run', '--config', 'test/support/leaky/vitest.config.ts', '--reporter=json', `--outputFile=${output}`], {
      cwd: REPO, stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, LEAKY_SECONDS: SECONDS, CLI_MCP_LEFTOVERS_GRACE_MS: '300', CI: 'true' },
    });
    let stderr = '';
    run.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => run.once('close', resolve));
    expect(code, stderr).toBe(1);
    const report = JSON.parse(readFileSync(output, 'utf8')) as Report;
    const byFile = new Map(report.testResults.map((result) => [result.name.split('/').pop()!, result]));
    expect(byFile.get('clean.fixture.ts')).toMatchObject({ status: 'passed' });
    // Attribution: another file's leftovers (still there when this one ended) do not fail it.
    expect(byFile.get('beside.fixture.ts')).toMatchObject({ status: 'passed' });
    const failure = (file: string): string => {
      expect(byFile.get(file)?.status, file).toBe('failed');
      return byFile.get(file)!.message;
    };
    const processes = failure('process.fixture.ts');
    expect(processes).toContain('left behind (C-TEST-1)');
    expect(processes).toContain(`sleep ${SECONDS}`);
    // The setsid job was reparented away from the worker: found by the file's environment marker.
    expect(processes).toContain(`sleep ${SECONDS}.5`);
    expect(failure('socket.fixture.ts')).toMatch(/listening tcp6? socket on port \d+/);
    expect(failure('temp.fixture.ts')).toMatch(/temp entry forgotten-\w+/);
    // What afterAll removes is found: both sleeps, still running (a `\0` before the digits read as an octal escape
    // once, matched nothing, and every run left two sleeps of two hours behind).
    expect(sleepers()).toHaveLength(2);
  }, 120_000);
});
