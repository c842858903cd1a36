import { STATE_RESET_NOTICE, type ExecResponse } from '@cli-mcp/agent-client';
import type { SinkResult } from './stream-sink.js';

export const TIMEOUT_NOTICE = 'command timed out';
export const CANCEL_NOTICE = 'command cancelled';
/** Exit codes of a stopped command, as a terminal would show them (C-AG-7: SIGKILL; C-AG-4: Ctrl-C). */
export const TIMEOUT_EXIT_CODE = 137;
export const CANCEL_EXIT_CODE = 130;

export interface CommandOutcome {
  stdout: SinkResult;
  stderr: SinkResult;
  exitCode: number;
  durationMs: number;
  timedOut: boolean;
  cancelled: boolean;
  stateReset: boolean;
}

/**
 * The wire result (C-AG-1). Notices are added to the text, not to the byte counts: the reset notice starts stderr
 * (C-AG-8) and the timeout/cancel notice ends it on its own line (C-AG-7) — at the end of `stderr_tail` when stderr
 * was truncated, since that is where the stream ends.
 */
export function buildExecResponse(outcome: CommandOutcome): ExecResponse {
  const out = outcome.stdout.captured;
  const err = outcome.stderr.captured;
  const endNotice = outcome.timedOut ? TIMEOUT_NOTICE : outcome.cancelled ? CANCEL_NOTICE : undefined;
  let stderr = err.text;
  let stderrTail = err.tail;
  if (endNotice !== undefined) {
    if (err.truncated) stderrTail = appendLine(stderrTail ?? '', endNotice);
    else stderr = appendLine(stderr, endNotice);
  }
  if (outcome.stateReset) stderr = stderr === '' ? STATE_RESET_NOTICE : `${STATE_RESET_NOTICE}\n${stderr}`;

  const response: ExecResponse = {
    stdout: out.text,
    stderr,
    exit_code: outcome.exitCode,
    duration_ms: Math.max(0, Math.round(outcome.durationMs)),
    timed_out: outcome.timedOut,
    cancelled: outcome.cancelled,
    truncated: out.truncated || err.truncated,
    state_reset: outcome.stateReset,
    stdout_bytes: out.bytes,
    stderr_bytes: err.bytes,
  };
  if (out.truncated) {
    response.stdout_tail = out.tail ?? '';
    response.stdout_omitted_bytes = out.omittedBytes ?? 0;
    response.stdout_omitted_lines = out.omittedLines ?? 0;
  }
  if (err.truncated) {
    response.stderr_tail = stderrTail ?? '';
    response.stderr_omitted_bytes = err.omittedBytes ?? 0;
    response.stderr_omitted_lines = err.omittedLines ?? 0;
  }
  if (outcome.stdout.file) response.stdout_file = outcome.stdout.file;
  if (outcome.stderr.file) response.stderr_file = outcome.stderr.file;
  if (out.binary) response.stdout_binary = true;
  if (err.binary) response.stderr_binary = true;
  return response;
}

function appendLine(text: string, line: string): string {
  return text === '' ? line : `${text}\n${line}`;
}

/** A command that never ran because it was cancelled while queued. */
export function cancelledBeforeStart(): ExecResponse {
  return {
    stdout: '',
    stderr: CANCEL_NOTICE,
    exit_code: CANCEL_EXIT_CODE,
    duration_ms: 0,
    timed_out: false,
    cancelled: true,
    truncated: false,
    state_reset: false,
    stdout_bytes: 0,
    stderr_bytes: 0,
  };
}
