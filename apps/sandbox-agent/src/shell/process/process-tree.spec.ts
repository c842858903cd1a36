import { describe, expect, it } from 'vitest';
import { parseStat } from './proc-table.js';
import { processKey, selectCommandTree, type ProcEntry } from './process-tree.js';

const SHELL = 100;
const SESSION = 100;

function p(pid: number, ppid: number, extra: Partial<ProcEntry> = {}): ProcEntry {
  return { pid, ppid, pgrp: SHELL, session: SESSION, startTime: pid * 10, ...extra };
}

// Shell 100 with: an earlier background job 101 (child 102), the command's pipeline 110|111 where 110 forked 112,
// a `setsid` process 120 (other session, child 121), a `nohup` process 130 (child 131), and an unrelated 900.
const TABLE: ProcEntry[] = [
  p(1, 0, { session: 1 }),
  p(SHELL, 1),
  p(101, SHELL), p(102, 101),
  p(110, SHELL), p(111, SHELL), p(112, 110),
  p(120, SHELL, { session: 120, pgrp: 120 }), p(121, 120, { session: 120, pgrp: 120 }),
  p(130, SHELL), p(131, 130),
  p(900, 1, { session: 900 }),
];

describe(selectCommandTree.name, () => {
  const base = {
    table: TABLE,
    rootPid: SHELL,
    includeRoot: false,
    preexisting: new Set([processKey(p(101, SHELL))]),
    detachedByNohup: (pid: number) => pid === 130 || pid === 131,
  };

  it('selects the command tree, every parent before its children, and never the shell', () => {
    // 110 before 112: a shell in the tree is signalled before its child dies, so it cannot run its list's next step.
    expect(selectCommandTree(base)).toEqual([110, 112, 111]);
  });

  it('treats a reused pid of an earlier job as new (start time differs)', () => {
    const table = TABLE.map((e) => (e.pid === 101 ? { ...e, startTime: 99_999 } : e));
    expect(selectCommandTree({ ...base, table })).toEqual([101, 102, 110, 112, 111]);
  });

  it('includes the root for tty commands', () => {
    expect(selectCommandTree({ ...base, rootPid: 110, includeRoot: true })).toEqual([110, 112]);
  });

  it('returns nothing when the root is gone', () => {
    expect(selectCommandTree({ ...base, rootPid: 4242 })).toEqual([]);
  });
});

describe(parseStat.name, () => {
  it('reads fields after the last parenthesis (names may contain spaces and parens)', () => {
    const fields = ['S', '77', '88', '99', ...Array.from({ length: 15 }, () => '0'), '12345', '0'];
    expect(parseStat(`4242 (we ird) (name) ${fields.join(' ')}`)).toEqual({ pid: 4242, ppid: 77, pgrp: 88, session: 99, startTime: 12345 });
  });

  it('rejects garbage', () => {
    expect(parseStat('nonsense')).toBeUndefined();
  });
});
