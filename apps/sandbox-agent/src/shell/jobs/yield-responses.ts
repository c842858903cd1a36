import { RUNNING_EXIT_CODE, type EndedJob, type ExecResponse, type YieldMode } from '@cli-mcp/agent-client';
import { buildExecResponse } from '../output/command-result.js';
import { tokenize, UnsupportedShell, type Token } from '../script/shell-lexer.js';
import type { StreamName } from '../output/output-channel.js';
import type { StreamSink } from '../output/stream-sink.js';

/** Most characters of a blocking command's latest output quoted in a `queued` answer. */
const QUOTED_OUTPUT_CHARS = 600;
/** Most characters of a held command's output after its yield point reported with its end (C-MCP-15). */
const HELD_OUTPUT_CHARS = 2000;

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

/**
 * C-MCP-15: the jobs a command held in the shell waits for — the arguments of its `wait` words (`%1`, a pid), or
 * `all jobs` for a bare `wait`. Undefined when it has no `wait` in command position (or the lexer cannot read it).
 */
export function waitTargets(command: string): string | undefined {
  const tokens = tokensOf(command);
  if (tokens === undefined) return undefined;
  const targets: string[] = [];
  let found = false;
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i]!;
    const commandPosition = i === 0 || tokens[i - 1]!.kind === 'op';
    if (token.kind !== 'word' || token.text !== 'wait' || !commandPosition) continue;
    found = true;
    for (let j = i + 1; j < tokens.length && tokens[j]!.kind === 'word'; j++) {
      const arg = tokens[j]!.text;
      if (!arg.startsWith('-')) targets.push(arg);
    }
  }
  if (!found) return undefined;
  return targets.length === 0 ? 'all jobs' : [...new Set(targets)].join(' ');
}

/**
 * C-MCP-15: whether every `wait` in command position is `wait %N` of a job whose status the shell keeps (`kept`), so
 * the kept-status `wait` may be defined for the command (protocol.sh `__climcp_wt`). False without such a `wait`.
 */
export function onlyKeptWaits(command: string, kept: (spec: string) => boolean): boolean {
  if (!/\bwait\b/.test(command)) return false;
  const tokens = tokensOf(command);
  if (tokens === undefined) return false;
  let found = false;
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i]!;
    if (token.kind !== 'word' || token.text !== 'wait' || !(i === 0 || tokens[i - 1]!.kind === 'op')) continue;
    const arg = tokens[i + 1];
    const after = tokens[i + 2];
    if (arg?.kind !== 'word' || !/^%\d+$/.test(arg.text) || !kept(arg.text) || (after !== undefined && after.kind !== 'op')) return false;
    found = true;
  }
  return found;
}

/**
 * The end of a command that held the shell past its yield point (C-MCP-15), reported at the next result: its status
 * and the output it produced after the answer at the yield point (`early`), the end of it when long.
 */
export function heldEnd(early: ExecResponse, final: ExecResponse): EndedJob {
  const end: EndedJob = { exit_code: final.exit_code, duration_ms: final.duration_ms };
  const stdout = afterYield(early.stdout, final.stdout_tail ?? final.stdout, final.stdout_tail !== undefined);
  const stderr = afterYield(early.stderr, final.stderr_tail ?? final.stderr, final.stderr_tail !== undefined);
  if (stdout !== '') end.stdout = stdout;
  if (stderr !== '') end.stderr = stderr;
  if (final.stdout_file !== undefined) end.stdout_file = final.stdout_file;
  if (final.stderr_file !== undefined) end.stderr_file = final.stderr_file;
  if (early.job !== undefined) end.waited_for = early.job;
  return end;
}

/** What `final` holds beyond `early`; a tail (`cut`) cannot be lined up with it and is quoted as it is. */
function afterYield(early: string, final: string, cut: boolean): string {
  const rest = !cut && final.startsWith(early) ? final.slice(early.length).replace(/^\n/, '') : final;
  return rest.length <= HELD_OUTPUT_CHARS ? rest : `…${rest.slice(rest.length - HELD_OUTPUT_CHARS)}`;
}

/** The command's tokens, or undefined when the conservative lexer cannot read it (then no `wait` is recognised). */
function tokensOf(command: string): Token[] | undefined {
  try {
    return tokenize(command);
  } catch (error) {
    if (error instanceof UnsupportedShell) return undefined;
    throw error;
  }
}
