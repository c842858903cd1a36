// Blocks and tests behind the shared gate, one ready and one missing a tool each (test/support/prerequisites.ts).
import { describe, expect, it } from 'vitest';
import { describeWhenReady, itWhenReady } from '../prerequisites.js';

describeWhenReady('ready block', undefined, () => {
  it('runs', () => {
    expect(1 + 1).toBe(2);
  });
});

describeWhenReady('block missing a tool', 'frobctl is not installed (spawnSync frobctl ENOENT)', () => {
  // What a body may do at collection (make a temp dir, probe a tool): it must not happen for a gated block.
  console.warn('a gated body ran');
  it('would need frobctl', () => {
    throw new Error('a gated block ran');
  });
});

describe('single tests', () => {
  itWhenReady('ready test', undefined, () => {
    expect('ok').toBe('ok');
  });
  itWhenReady('test missing a tool', 'grobctl is not installed', () => {
    throw new Error('a gated test ran');
  });
});
