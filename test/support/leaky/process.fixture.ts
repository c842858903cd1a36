import { spawn } from 'node:child_process';
import { expect, it } from 'vitest';

const SECONDS = process.env['LEAKY_SECONDS'] ?? '61';

it('leaves a child and a job reparented away from it', () => {
  spawn('sleep', [SECONDS], { stdio: 'ignore', detached: true }).unref();
  spawn('sh', ['-c', `setsid sleep ${SECONDS}.5 >/dev/null 2>&1 &`], { stdio: 'ignore' });
  expect(true).toBe(true);
});
