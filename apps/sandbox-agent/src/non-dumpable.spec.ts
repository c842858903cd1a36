import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { loadPrctl, makeNonDumpable, type Prctl } from './non-dumpable.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

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

  it('says why when prctl cannot be loaded (no addon, not Linux)', () => {
    const state = makeNonDumpable(() => {
      throw new Error("Cannot find module '@cli-mcp/non-dumpable'\nRequire stack:\n- /users/someone/main.js");
    });
    expect(state).toEqual({ nonDumpable: false, reason: "prctl(2) is unavailable: Cannot find module '@cli-mcp/non-dumpable'" });
  });

  it('reports a failed PR_SET_DUMPABLE', () => {
    expect(makeNonDumpable(() => fakePrctl({ setReturns: -1 }).prctl)).toEqual({ nonDumpable: false, reason: 'prctl(PR_SET_DUMPABLE, 0) failed' });
  });

  it('does not trust PR_SET_DUMPABLE alone: a flag that did not change is reported', () => {
    expect(makeNonDumpable(() => fakePrctl({ ignoreSet: true }).prctl)).toEqual({ nonDumpable: false, reason: 'PR_GET_DUMPABLE still says 1' });
  });
});

describe(`${loadPrctl.name} (the real addon, native/non-dumpable)`, () => {
  it('returns a working prctl(2): PR_GET_DUMPABLE says this (dumpable) test process is dumpable', () => {
    expect(loadPrctl()(3, 0)).toBe(1);
  });

  it('rejects a value that is not a number instead of passing garbage to the kernel', () => {
    expect(() => (loadPrctl() as (option: unknown, value: unknown) => number)('3', 0)).toThrow('prctl(option, value): integers expected');
  });

  it('makes a process non-dumpable for real, as the CommonJS bundle loads it (in a child: the runner stays dumpable)', () => {
    // This module compiled to CommonJS as the agent bundle has it (a `require` of its own), run from the repository
    // so the addon resolves from its node_modules.
    const source = readFileSync(fileURLToPath(new URL('./non-dumpable.ts', import.meta.url)), 'utf8');
    const code = ts.transpileModule(source, { compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022 } }).outputText
      // Never reached under CommonJS (it has `require`), but a syntax error there; esbuild empties it the same way.
      .replace('import.meta.url', 'undefined');
    const probe = `${code}\nconst state = module.exports.makeNonDumpable();\n`
      + 'console.log(JSON.stringify({ state, now: module.exports.loadPrctl()(3, 0) }));';
    const out = execFileSync(process.execPath, ['--input-type=commonjs', '-e', probe], { cwd: ROOT, encoding: 'utf8' });
    expect(JSON.parse(out)).toEqual({ state: { nonDumpable: true }, now: 0 });
    expect(loadPrctl()(3, 0)).toBe(1);
  });
});
