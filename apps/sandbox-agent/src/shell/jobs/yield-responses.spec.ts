import type { ExecResponse } from '@cli-mcp/agent-client';
import { describe, expect, it } from 'vitest';
import { heldEnd, onlyKeptWaits, waitTargets } from './yield-responses.js';

describe('waitTargets (C-MCP-15)', () => {
  it.each([
    ['wait %1; echo rc=$?', '%1'],
    ['wait', 'all jobs'],
    ['wait -n %1 %2', '%1 %2'],
    ['cd /tmp && wait 42', '42'],
    ['echo wait %1', undefined],
    ['sleep 5', undefined],
    ['echo "unterminated', undefined],
  ])('%j → %j', (command, targets) => {
    expect(waitTargets(command)).toBe(targets);
  });
});

describe('onlyKeptWaits (C-MCP-15)', () => {
  const kept = (spec: string): boolean => spec === '%1';
  it.each([
    ['wait %1; echo rc=$?', true],
    ['wait %1 && wait %1', true],
    ['wait %2', false],
    ['wait %1 %2', false],
    ['wait', false],
    ['wait -n', false],
    ['echo wait %1', false],
    ['wait %1; wait', false],
  ])('%j → %j', (command, expected) => {
    expect(onlyKeptWaits(command, kept)).toBe(expected);
  });
});

describe('heldEnd (C-MCP-15)', () => {
  const response = (fields: Partial<ExecResponse>): ExecResponse => ({ stdout: '', stderr: '', exit_code: 0, duration_ms: 0, timed_out: false,
    cancelled: false, truncated: false, state_reset: false, stdout_bytes: 0, stderr_bytes: 0, ...fields });

  it('keeps only the output after the yield point, and names what the wait waited for', () => {
    const early = response({ stdout: 'before', job: '%1', running: true, exit_code: -1 });
    const final = response({ stdout: 'before\nrc=0', stderr: 'late', exit_code: 0, duration_ms: 2_500, stdout_file: '/o/2.stdout' });
    expect(heldEnd(early, final)).toEqual({ exit_code: 0, duration_ms: 2_500, stdout: 'rc=0', stderr: 'late', stdout_file: '/o/2.stdout', waited_for: '%1' });
  });

  it('a cut output is quoted by its tail, bounded', () => {
    const final = response({ stdout: 'head', stdout_tail: 'x'.repeat(5_000), truncated: true });
    const end = heldEnd(response({}), final);
    expect(end.stdout).toHaveLength(2_001);
    expect(end.stdout!.startsWith('…')).toBe(true);
  });
});
