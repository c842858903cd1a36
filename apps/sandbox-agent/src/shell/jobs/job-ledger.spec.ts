import { describe, expect, it } from 'vitest';
import { CLEARED, JobLedger, parseJobsListing, TAKEN } from './job-ledger.js';

// Listings as bash 5.2 prints `jobs -l` (C-MCP-15).
const RUNNING = '[1]+  4242 Running                 sleep 30 &\n';
const PIPELINE_RUNNING = '[2]+ 13675 Running                 sleep 0.2\n     13676                       | ( sleep 0.1; exit 4 ) &\n';
const PIPELINE_ENDED = '[2]+ 13675 Done                    sleep 0.2\n     13676 Exit 4                  | ( sleep 0.1; exit 4 )\n';

describe('parseJobsListing', () => {
  it.each([
    [RUNNING, [{ spec: '%1', pid: 4242, lastPid: 4242, state: { kind: 'running' } }]],
    ['[1]-  5280 Done                    sleep 0.1\n', [{ spec: '%1', pid: 5280, lastPid: 5280, state: { kind: 'ended', exitCode: 0 } }]],
    ['[3]+  8115 Exit 3                  ( sleep 0.1; exit 3 )\n', [{ spec: '%3', pid: 8115, lastPid: 8115, state: { kind: 'ended', exitCode: 3 } }]],
    ['[1]+  9 Terminated              sleep 30\n', [{ spec: '%1', pid: 9, lastPid: 9, state: { kind: 'ended', exitCode: 143, signal: 'Terminated' } }]],
    ['[1]+  9 Segmentation fault (core dumped)  ./crash\n', [{ spec: '%1', pid: 9, lastPid: 9, state: { kind: 'ended', exitCode: 139, signal: 'Segmentation fault (core dumped)' } }]],
    ['[1]+  9 Stopped (signal)        sleep 5\n', [{ spec: '%1', pid: 9, lastPid: 9, state: { kind: 'running' } }]],
    [PIPELINE_RUNNING, [{ spec: '%2', pid: 13675, lastPid: 13676, state: { kind: 'running' } }]],
    // A pipeline's status is its last process's, as bash's $? for it.
    [PIPELINE_ENDED, [{ spec: '%2', pid: 13675, lastPid: 13676, state: { kind: 'ended', exitCode: 4 } }]],
    ['', []],
  ])('%j', (text, jobs) => {
    expect(parseJobsListing(text)).toEqual(jobs);
  });
});

describe('JobLedger', () => {
  it('reports a tracked job\'s end once, with its files and the time since it started', () => {
    const ledger = new JobLedger();
    expect(ledger.watching).toBe(false);
    ledger.noteDetached('%1', 4242, 1_000, { stdout: '/out/1.stdout', stderr: '/out/1.stderr' });
    expect(ledger.watching).toBe(true);
    ledger.absorb(RUNNING, 5_000, 6_000);
    expect(ledger.take()).toBeUndefined();
    ledger.absorb('[1]+  4242 Exit 2                  sleep 30\n', 7_000, 10_000);
    expect(ledger.take()).toEqual([{ job: '%1', pid: 4242, exit_code: 2, duration_ms: 9_000, stdout_file: '/out/1.stdout', stderr_file: '/out/1.stderr' }]);
    expect(ledger.take()).toBeUndefined();
    expect(ledger.watching).toBe(false);
    expect(ledger.hasKeptStatus('%1')).toBe(true);
    expect(ledger.takeKept()).toEqual([['%1', 2]]);
    expect(ledger.takeKept()).toBeUndefined();
  });

  it('a job bash forgot with no listed end (the user\'s wait, jobs or disown took it) is not reported again, and kept as taken', () => {
    const ledger = new JobLedger();
    ledger.absorb(PIPELINE_RUNNING, 2_000, 2_500);
    expect(ledger.watching).toBe(true);
    ledger.absorb('', 3_000, 3_500);
    expect(ledger.watching).toBe(false);
    expect(ledger.take()).toBeUndefined();
    expect(ledger.hasKeptStatus('%2')).toBe(true);
    expect(ledger.takeKept()).toEqual([['%2', TAKEN]]);
    // A later job of the same number that ends with a listing replaces it.
    ledger.absorb('[2]+  777 Exit 6                  false\n', 4_000, 4_500);
    expect(ledger.takeKept()).toEqual([['%2', 6]]);
  });

  it('a new job of a number drops the status kept for the earlier job of that number (the shell unsets it)', () => {
    const ledger = new JobLedger();
    ledger.noteDetached('%1', 10, 1_000, {});
    ledger.absorb('[1]+  10 Done                    sleep 4\n', 2_000, 3_000);
    expect(ledger.takeKept()).toEqual([['%1', 0]]);
    // A yield makes a new %1: `wait %1` must reach bash's own wait, not a stale kept status.
    ledger.noteDetached('%1', 24, 4_000, {});
    expect(ledger.hasKeptStatus('%1')).toBe(false);
    expect(ledger.takeKept()).toEqual([['%1', CLEARED]]);
    // The same for a `&` job first seen in a listing.
    ledger.absorb('[1]+  24 Exit 3                  x\n', 5_000, 6_000);
    ledger.absorb('[1]+  31 Running                 sleep 9 &\n', 7_000, 7_000);
    expect(ledger.hasKeptStatus('%1')).toBe(false);
    expect(ledger.takeKept()).toEqual([['%1', 3], ['%1', CLEARED]]);
  });

  it('a held command\'s end is reported once; clear forgets the shell\'s jobs', () => {
    const ledger = new JobLedger();
    ledger.noteHeldEnded({ exit_code: 0, duration_ms: 5, waited_for: '%1', stdout: 'rc=0' });
    ledger.noteDetached('%1', 1, 0, {});
    ledger.clear();
    expect(ledger.watching).toBe(false);
    expect(ledger.take()).toEqual([{ exit_code: 0, duration_ms: 5, waited_for: '%1', stdout: 'rc=0' }]);
  });
});
