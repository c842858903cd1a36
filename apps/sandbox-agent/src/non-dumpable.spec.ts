import { describe, expect, it } from 'vitest';
import { makeNonDumpable, type Prctl } from './non-dumpable.js';

/** A strict fake of prctl(2): only PR_SET_DUMPABLE (4) and PR_GET_DUMPABLE (3) are expected. */
function fakePrctl(options: { setReturns?: number; ignoreSet?: boolean } = {}): { prctl: Prctl; calls: Array<[number, number]> } {
  let dumpable = 1;
  const calls: Array<[number, number]> = [];
  const prctl: Prctl = (option, value) => {
    calls.push([option, value]);
    if (option === 4) {
      if (!options.ignoreSet && (options.setReturns ?? 0) === 0) dumpable = value;
      return options.setReturns ?? 0;
    }
    if (option === 3) return dumpable;
    throw new Error(`unexpected prctl option ${option}`);
  };
  return { prctl, calls };
}

describe(makeNonDumpable.name, () => {
  it('clears the dumpable flag and checks that it took', () => {
    const fake = fakePrctl();
    expect(makeNonDumpable(() => fake.prctl)).toEqual({ nonDumpable: true });
    expect(fake.calls).toEqual([[4, 0], [3, 0]]);
  });

  it('says why when prctl cannot be loaded (no koffi, not Linux)', () => {
    const state = makeNonDumpable(() => {
      throw new Error("Cannot find module 'koffi'\nRequire stack:\n- /users/someone/main.js");
    });
    expect(state).toEqual({ nonDumpable: false, reason: "prctl(2) is unavailable: Cannot find module 'koffi'" });
  });

  it('reports a failed PR_SET_DUMPABLE', () => {
    expect(makeNonDumpable(() => fakePrctl({ setReturns: -1 }).prctl)).toEqual({ nonDumpable: false, reason: 'prctl(PR_SET_DUMPABLE, 0) failed' });
  });

  it('does not trust PR_SET_DUMPABLE alone: a flag that did not change is reported', () => {
    expect(makeNonDumpable(() => fakePrctl({ ignoreSet: true }).prctl)).toEqual({ nonDumpable: false, reason: 'PR_GET_DUMPABLE still says 1' });
  });
});
