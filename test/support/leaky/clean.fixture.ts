import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';

it('cleans up after itself', () => {
  const dir = mkdtempSync(join(tmpdir(), 'clean-'));
  expect(spawnSync('true').status).toBe(0);
  rmSync(dir, { recursive: true });
});
