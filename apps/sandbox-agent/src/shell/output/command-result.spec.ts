import { STATE_RESET_NOTICE } from '@cli-mcp/agent-client';
import { describe, expect, it } from 'vitest';
import { buildExecResponse, type CommandOutcome } from './command-result.js';
import type { CapturedStream } from './output-capture.js';

const stream = (text: string, extra: Partial<CapturedStream> = {}) => ({
  captured: { text, truncated: false, bytes: Buffer.byteLength(text), binary: false, ...extra },
});

const outcome = (extra: Partial<CommandOutcome>): CommandOutcome => ({
  stdout: stream('out'), stderr: stream(''), exitCode: 0, durationMs: 1.6, timedOut: false, cancelled: false,
  stateReset: false, ...extra,
});

describe(buildExecResponse.name, () => {
  it('produces the wire fields in order, without optional ones when not needed', () => {
    expect(Object.keys(buildExecResponse(outcome({})))).toEqual(['stdout', 'stderr', 'exit_code', 'duration_ms', 'timed_out',
      'cancelled', 'truncated', 'state_reset', 'stdout_bytes', 'stderr_bytes']);
    expect(buildExecResponse(outcome({})).duration_ms).toBe(2);
  });

  it('starts stderr with the exact reset notice (C-AG-8)', () => {
    expect(buildExecResponse(outcome({ stateReset: true })).stderr).toBe(STATE_RESET_NOTICE);
    expect(buildExecResponse(outcome({ stateReset: true, stderr: stream('boom') })).stderr).toBe(`${STATE_RESET_NOTICE}\nboom`);
  });

  it('ends stderr with the timeout or cancel notice on its own line, without counting it', () => {
    const timedOut = buildExecResponse(outcome({ timedOut: true, stderr: stream('partial') }));
    expect(timedOut.stderr).toBe('partial\ncommand timed out');
    expect(timedOut.stderr_bytes).toBe(7);
    expect(buildExecResponse(outcome({ cancelled: true })).stderr).toBe('command cancelled');
  });

  it('puts the end notice at the end of the tail when stderr was truncated', () => {
    const r = buildExecResponse(outcome({ timedOut: true,
      stderr: stream('head', { truncated: true, tail: 'tail', omittedBytes: 10, omittedLines: 2, bytes: 18 }) }));
    expect(r.stderr).toBe('head');
    expect(r.stderr_tail).toBe('tail\ncommand timed out');
    expect(r).toMatchObject({ truncated: true, stderr_omitted_bytes: 10, stderr_omitted_lines: 2 });
  });

  it('reports files and binary streams', () => {
    const r = buildExecResponse(outcome({ stdout: { captured: stream('x', { binary: true }).captured, file: '/w/.cli-mcp/out/1.stdout' } }));
    expect(r.stdout_file).toBe('/w/.cli-mcp/out/1.stdout');
    expect(r.stdout_binary).toBe(true);
    expect(r.stderr_binary).toBeUndefined();
  });
});
