import { describe, expect, it } from 'vitest';
import { selectSpillFilesToDelete, spillSeqOf } from './spill-retention.js';

const files = (spec: Array<[string, number]>) => spec.map(([name, size]) => ({ name, size }));

describe(selectSpillFilesToDelete.name, () => {
  it('keeps the newest N commands', () => {
    const doomed = selectSpillFilesToDelete(files([['1.stdout', 1], ['2.stdout', 1], ['2.stderr', 1], ['3.stdout', 1], ['10.stdout', 1]]), 2, 1000);
    expect(doomed.sort()).toEqual(['1.stdout', '2.stderr', '2.stdout']);
  });

  it('keeps the total under the cap, deleting the oldest once one does not fit', () => {
    const doomed = selectSpillFilesToDelete(files([['1.stdout', 10], ['2.stdout', 50], ['3.stdout', 60]]), 10, 100);
    expect(doomed.sort()).toEqual(['1.stdout', '2.stdout']);
  });

  it('always keeps the newest command, even above the cap', () => {
    expect(selectSpillFilesToDelete(files([['5.stdout', 500], ['4.stdout', 1]]), 10, 100)).toEqual(['4.stdout']);
  });

  it('ignores files it did not write', () => {
    expect(selectSpillFilesToDelete(files([['notes.txt', 999], ['1.stdout', 1]]), 1, 1)).toEqual([]);
    expect(spillSeqOf('background.log')).toBeUndefined();
    expect(spillSeqOf('12.stderr')).toBe(12);
  });
});
