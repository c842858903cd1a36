import { describe, expect, it } from 'vitest';
import type { ProcEntry } from '../process/process-tree.js';
import { processKey } from '../process/process-tree.js';
import { BUSY_REASONS, decideAtYield, parseJobLine, type YieldScene } from './yield-point.js';

const SHELL = 100;
const entry = (pid: number, ppid: number, pgrp: number): ProcEntry => ({ pid, ppid, pgrp, session: SHELL, startTime: pid });
const scene = (overrides: Partial<YieldScene>): YieldScene =>
  ({ mode: 'J', shellPid: SHELL, preexisting: new Set(), table: [entry(SHELL, 1, SHELL)], shellReplaced: false, ...overrides });

describe(decideAtYield.name, () => {
  it('detaches the one job the shell waits for (its own process group)', () => {
    const table = [entry(SHELL, 1, SHELL), entry(200, SHELL, 200), entry(201, SHELL, 200), entry(300, 200, 200)];
    expect(decideAtYield(scene({ table }))).toEqual({ kind: 'detach', pgid: 200 });
    expect(decideAtYield(scene({ table, mode: 'P' }))).toEqual({ kind: 'detach', pgid: 200 });
  });

  it('ignores earlier background jobs of the shell', () => {
    const old = entry(150, SHELL, 150);
    const table = [entry(SHELL, 1, SHELL), old, entry(200, SHELL, 200)];
    expect(decideAtYield(scene({ table, preexisting: new Set([processKey(old)]) }))).toEqual({ kind: 'detach', pgid: 200 });
  });

  it('is busy when the shell runs the command itself or there is no single job', () => {
    expect(decideAtYield(scene({ mode: 'S' }))).toEqual({ kind: 'busy', reason: BUSY_REASONS.inShell });
    expect(decideAtYield(scene({ mode: undefined }))).toEqual({ kind: 'busy', reason: BUSY_REASONS.inShell });
    expect(decideAtYield(scene({}))).toEqual({ kind: 'busy', reason: BUSY_REASONS.noJob });
    // Job control off: the child shares the shell's group.
    const sameGroup = [entry(SHELL, 1, SHELL), entry(200, SHELL, SHELL)];
    expect(decideAtYield(scene({ table: sameGroup }))).toEqual({ kind: 'busy', reason: BUSY_REASONS.noJob });
    const twoJobs = [entry(SHELL, 1, SHELL), entry(200, SHELL, 200), entry(210, SHELL, 210)];
    expect(decideAtYield(scene({ table: twoJobs }))).toEqual({ kind: 'busy', reason: BUSY_REASONS.noJob });
  });

  it('interrupts a lone wait and refuses a shell replaced by exec', () => {
    expect(decideAtYield(scene({ mode: 'W' }))).toEqual({ kind: 'interrupt' });
    expect(decideAtYield(scene({ shellReplaced: true }))).toEqual({ kind: 'busy', reason: BUSY_REASONS.replaced });
  });
});

describe(parseJobLine.name, () => {
  it('reads the job number and leader pid of the first line', () => {
    expect(parseJobLine('[3]+  4242 Stopped (signal)        sleep 5\n      4243                       | cat')).toEqual({ spec: '%3', pid: 4242 });
    expect(parseJobLine('[12]- 77 Running  x &')).toEqual({ spec: '%12', pid: 77 });
    expect(parseJobLine('bash: jobs: %+: no such job')).toBeUndefined();
  });
});
