import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';

const register = fileURLToPath(new URL('./support/register-ts.mjs', import.meta.url));
const racer = fileURLToPath(new URL('./support/lock-racer.mjs', import.meta.url));

/** Two real processes take one state dir's lock at the same moment: exactly one may win. */
describe('the state-dir lock across processes', () => {
  let dir: string | undefined;
  const children: Array<ReturnType<typeof spawn>> = [];
  afterEach(async () => {
    for (const child of children.splice(0)) child.kill('SIGKILL');
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  const race = async (stateDir: string): Promise<string[]> => {
    const startAt = String(Date.now() + 1500);
    const lines = [0, 1].map(() => {
      const child = spawn(process.execPath, ['--import', register, racer, stateDir, startAt], { stdio: ['ignore', 'pipe', 'inherit'] });
      children.push(child);
      return once(createInterface({ input: child.stdout! }), 'line').then(([line]) => line as string);
    });
    return Promise.all(lines);
  };

  it('lets exactly one of two servers starting together have a fresh state dir', async () => {
    dir = await mkdtemp(join(tmpdir(), 'cli-mcp-lock-it-'));
    const outcomes = await race(join(dir, 'state'));
    expect(outcomes.filter((line) => line === 'won')).toHaveLength(1);
    const winner = children[outcomes.indexOf('won')]!.pid;
    expect(outcomes.find((line) => line !== 'won')).toBe(`state directory ${join(dir, 'state')} is in use by process ${winner}: give each server its own --state-dir`);
    expect((await readFile(join(dir, 'state/local-backend.pid'), 'utf8')).trim()).toBe(String(winner));
  });

  it('lets exactly one of two take over the lock of a dead server', async () => {
    dir = await mkdtemp(join(tmpdir(), 'cli-mcp-lock-it-'));
    const { mkdir } = await import('node:fs/promises');
    await mkdir(join(dir, 'state'), { mode: 0o700 });
    await writeFile(join(dir, 'state/local-backend.pid'), '999999999\n');
    const outcomes = await race(join(dir, 'state'));
    expect(outcomes.filter((line) => line === 'won')).toHaveLength(1);
    expect((await readFile(join(dir, 'state/local-backend.pid'), 'utf8')).trim()).toBe(String(children[outcomes.indexOf('won')]!.pid));
  });
});
