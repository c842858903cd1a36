import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';

it('leaves a temp dir', () => {
  expect(mkdtempSync(join(tmpdir(), 'forgotten-'))).toContain('forgotten-');
});
