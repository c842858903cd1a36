import { RUNNING_EXIT_CODE, type ExecResponse, type YieldMode } from '@cli-mcp/agent-client';
import { buildExecResponse } from './command-result.js';
import type { StreamName } from './output-channel.js';
import type { StreamSink } from './stream-sink.js';

/** Most characters of a blocking command's latest output quoted in a `queued` answer. */
const QUOTED_OUTPUT_CHARS = 600;

export interface RunningDetails {
  mode: YieldMode;
  job?: string;
  jobPid?: number;
  reason?: string;
}

/**
 * The answer at the yield point for a command that keeps running (C-MCP-11): its output so far — saved to its files
 * from now on, so the model can follow it — and how it goes on. `exit_code` is RUNNING_EXIT_CODE, never a status.
 */
export function runningResponse(sinks: Record<StreamName, StreamSink>, durationMs: number, details: RunningDetails, stateReset: boolean): ExecResponse {
  sinks.stdout.spillNow();
  sinks.stderr.spillNow();
  const response = buildExecResponse({
    stdout: sinks.stdout.snapshot(),
    stderr: sinks.stderr.snapshot(),
    exitCode: RUNNING_EXIT_CODE,
    durationMs,
    timedOut: false,
    cancelled: false,
    stateReset,
  });
  return withDetails(response, details);
}

/** A command still queued at its yield point: it never runs; the answer says what holds the shell. */
export function queuedResponse(blocking: Record<StreamName, { text: string }> | undefined): ExecResponse {
  const out = blocking?.stdout.text ?? '';
  const err = blocking?.stderr.text ?? '';
  const latest = lastChars(`${out}${err === '' ? '' : `\n${err}`}`.trim());
  const reason = latest === ''
    ? 'an earlier command still holds the session shell'
    : `an earlier command still holds the session shell; its latest output:\n${latest}`;
  return withDetails({
    stdout: '', stderr: '', exit_code: RUNNING_EXIT_CODE, duration_ms: 0, timed_out: false, cancelled: false, truncated: false,
    state_reset: false, stdout_bytes: 0, stderr_bytes: 0,
  }, { mode: 'queued', reason });
}

function withDetails(response: ExecResponse, details: RunningDetails): ExecResponse {
  const out: ExecResponse = { ...response, running: true, yield_mode: details.mode };
  if (details.job !== undefined) out.job = details.job;
  if (details.jobPid !== undefined) out.job_pid = details.jobPid;
  if (details.reason !== undefined) out.yield_reason = details.reason;
  return out;
}

function lastChars(text: string): string {
  return text.length <= QUOTED_OUTPUT_CHARS ? text : `…${text.slice(text.length - QUOTED_OUTPUT_CHARS)}`;
}
