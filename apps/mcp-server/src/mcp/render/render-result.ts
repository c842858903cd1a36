import { STATE_RESET_NOTICE, type ExecResponse } from '@cli-mcp/agent-client';
import type { SandboxLoss } from '@cli-mcp/session';
import type { ResultFormat } from '../../config/server-config.js';
import type { BashStructuredOutput } from '../bash-tool.definition.js';
import { fullLength, keepHeadTail, type KeptStream } from './keep-head-tail.js';
import { endedJobLines } from './ended-jobs.js';
import { formatElapsed, formatSeconds, STDERR_LABEL } from './format.js';
import { runningNotices, runningStatus } from './running-notice.js';
import { streamView, type StreamView } from './stream-view.js';

export { formatElapsed, STDERR_LABEL } from './format.js';

export interface RenderInput {
  readonly response: ExecResponse;
  /** The session's previous sandbox was gone and this command ran in a new one (C-K8S-7). */
  readonly sandboxRecreated: boolean;
  /** What it lost, as the backend reports it; absent with `sandboxRecreated` = everything. */
  readonly sandboxLoss?: SandboxLoss;
  /** The server's clamped timeout, for the timeout notice of an agent that does not report its own. */
  readonly timeoutSeconds: number;
  readonly format: ResultFormat;
  readonly maxChars: number;
}

export interface RenderedResult {
  /** The one text content item (C-MCP-5). */
  readonly text: string;
  readonly structured: BashStructuredOutput;
  /** Non-zero exit (timeouts and cancels included) → `isError: true` with the full rendering (C-MCP-4). */
  readonly isError: boolean;
}

export const NO_OUTPUT = '(no output)';
/** Share of the content budget stderr gets when both streams overflow. */
const STDERR_SHARE = 1 / 3;
/** Room for notices and the status line, measured with the longest numbers we print. */
const FIXED_CHROME = 200;

/**
 * Renders an agent result for a model (C-MCP-5/6): plain text with stdout first, a labelled stderr section, the
 * notices and one status line, all within `maxChars`; or the Go server's JSON object. `structured` carries the
 * same kept texts and the exact numbers.
 */
export function renderResult(input: RenderInput): RenderedResult {
  const { response } = input;
  const stdoutView = streamView(response, 'stdout');
  const stderrView = streamView(response, 'stderr');
  const notices = noticesFor(input, stdoutView, stderrView);
  // C-MCP-15: jobs that ended since the previous result lead the text (and, in the Go JSON format, its stderr).
  const ended = endedJobLines(response);
  const render = (stdout: KeptStream, stderr: KeptStream): RenderedResult => ({
    text:
      input.format === 'json'
        ? JSON.stringify({ stdout: stdout.text, stderr: [...ended, withRunningNotices(stderr.text, response, input)].filter((part) => part !== '').join('\n'),
          exit_code: response.exit_code, duration_ms: response.duration_ms })
        : textResult(input, ended, stdout, stderr, [...truncationNotices(stdoutView, stdout, stderrView, stderr), ...notices]),
    structured: structuredOutput(input, stdoutView, stderrView, stdout, stderr),
    // A command that keeps running is a normal result (C-MCP-11), not a failure.
    isError: response.running !== true && response.exit_code !== 0,
  });

  // Everything fits: no cut (the agent's own omissions still show, C-MCP-6).
  const whole = render(keepHeadTail(stdoutView, Infinity), keepHeadTail(stderrView, Infinity));
  if (whole.text.length <= input.maxChars) return whole;

  const chrome =
    [...ended, ...notices].reduce((sum, line) => sum + line.length + 1, 0) +
    FIXED_CHROME +
    truncationNoticeReserve(stdoutView) +
    truncationNoticeReserve(stderrView);
  return render(...allocate(stdoutView, stderrView, Math.max(0, input.maxChars - chrome)));
}

/** Splits the content budget: a stream that fits its share keeps everything and lends the rest to the other. */
function allocate(stdout: StreamView, stderr: StreamView, budget: number): [KeptStream, KeptStream] {
  const needOut = fullLength(stdout);
  const needErr = fullLength(stderr);
  let outBudget = needOut;
  let errBudget = needErr;
  if (needOut + needErr > budget) {
    const errShare = Math.floor(budget * STDERR_SHARE);
    if (needErr <= errShare) outBudget = budget - needErr;
    else if (needOut <= budget - errShare) errBudget = budget - needOut;
    else {
      errBudget = errShare;
      outBudget = budget - errShare;
    }
  }
  return [keepHeadTail(stdout, outBudget), keepHeadTail(stderr, errBudget)];
}

function textResult(input: RenderInput, ended: string[], stdout: KeptStream, stderr: KeptStream, notices: string[]): string {
  const parts: string[] = [...ended];
  if (stdout.text !== '') parts.push(stdout.text);
  if (stderr.text !== '') parts.push(STDERR_LABEL, stderr.text);
  if (parts.length === ended.length) parts.push(NO_OUTPUT);
  parts.push(...notices, statusLine(input.response));
  return parts.join('\n');
}

/** `[exit 0 · 12 ms]`: the one status line (C-MCP-5); a command still running has no exit status yet (C-MCP-11). */
export function statusLine(response: ExecResponse): string {
  const elapsed = formatElapsed(response.duration_ms);
  if (response.running !== true) return `[exit ${response.exit_code} · ${elapsed}]`;
  return runningStatus(response, elapsed);
}

/** The Go JSON format has no notice lines: a running command's notice ends its stderr text instead. */
function withRunningNotices(stderr: string, response: ExecResponse, input: RenderInput): string {
  const notices = runningNotices(response, input.timeoutSeconds);
  if (notices.length === 0) return stderr;
  return [stderr, ...notices].filter((part) => part !== '').join('\n');
}

function truncationNotices(outView: StreamView, out: KeptStream, errView: StreamView, err: KeptStream): string[] {
  const lines: string[] = [];
  for (const [view, kept] of [[outView, out], [errView, err]] as const) {
    if (kept.truncated) lines.push(truncationNotice(view, kept.omittedBytes, kept.omittedLines));
  }
  return lines;
}

/** `[stdout: 5 bytes (1 lines) omitted from the middle; full output: /workspace/.cli-mcp/…]` (C-MCP-6). */
function truncationNotice(view: StreamView, bytes: number, lines: number): string {
  const where = view.file ? `full output: ${view.file}` : 'the full output was not saved';
  return `[${view.name}: ${bytes} bytes (${lines} lines) omitted from the middle; ${where}]`;
}

function truncationNoticeReserve(view: StreamView): number {
  return truncationNotice(view, 999_999_999_999, 999_999_999_999).length + 1;
}

function noticesFor(input: RenderInput, stdout: StreamView, stderr: StreamView): string[] {
  const { response } = input;
  const lines: string[] = [];
  for (const view of [stdout, stderr]) {
    if (view.binary) lines.push(`[${view.name} looks like binary data (NUL bytes); the text shown is lossy]`);
  }
  // C-AG-14: the deadline the agent applied, when it says so — the result can never name another one.
  if (response.timed_out) lines.push(`[command timed out after ${formatSeconds(response.timeout_seconds ?? input.timeoutSeconds)} s]`);
  if (response.cancelled) lines.push('[command was cancelled]');
  // The agent already starts stderr with the reset notice (C-AG-8); repeat it only when that is not visible.
  if (response.state_reset && !response.stderr.startsWith(STATE_RESET_NOTICE)) lines.push(STATE_RESET_NOTICE);
  if (input.sandboxRecreated) lines.push(lossNotice(input.sandboxLoss ?? { shellState: true, files: true }));
  lines.push(...runningNotices(response, input.timeoutSeconds));
  return lines;
}

/** Says exactly what the session lost and what it kept (issue 8 §5): never "files gone" when they are there. */
export function lossNotice(loss: SandboxLoss): string {
  const notice = loss.files
    ? '[the sandbox was recreated: files and shell state from earlier commands are gone]'
    : '[the sandbox\'s shell was restarted: shell state from earlier commands (working directory, variables, ' +
      'functions, aliases, background jobs) is gone; files in /workspace were kept]';
  return loss.reason ? `${notice}\n[${loss.reason}]` : notice;
}

function structuredOutput(
  input: RenderInput,
  outView: StreamView,
  errView: StreamView,
  out: KeptStream,
  err: KeptStream,
): BashStructuredOutput {
  const { response } = input;
  const structured: BashStructuredOutput = {
    stdout: out.text,
    stderr: err.text,
    exit_code: response.exit_code,
    duration_ms: response.duration_ms,
    ...(response.timeout_seconds === undefined ? {} : { timeout_seconds: response.timeout_seconds }),
    timed_out: response.timed_out,
    cancelled: response.cancelled,
    truncated: out.truncated || err.truncated,
    state_reset: response.state_reset,
    sandbox_recreated: input.sandboxRecreated,
    ...(input.sandboxRecreated ? { sandbox_files_kept: !(input.sandboxLoss ?? { files: true }).files } : {}),
    stdout_bytes: outView.totalBytes,
    stderr_bytes: errView.totalBytes,
  };
  if (out.truncated) Object.assign(structured, { stdout_omitted_bytes: out.omittedBytes, stdout_omitted_lines: out.omittedLines });
  if (err.truncated) Object.assign(structured, { stderr_omitted_bytes: err.omittedBytes, stderr_omitted_lines: err.omittedLines });
  if (outView.file) structured.stdout_file = outView.file;
  if (errView.file) structured.stderr_file = errView.file;
  if (response.running === true) {
    Object.assign(structured, { running: true, yield_mode: response.yield_mode });
    if (response.job !== undefined) structured.job = response.job;
    if (response.job_pid !== undefined) structured.job_pid = response.job_pid;
    if (response.yield_reason !== undefined) structured.yield_reason = response.yield_reason;
  }
  if (outView.binary) structured.stdout_binary = true;
  if (errView.binary) structured.stderr_binary = true;
  return structured;
}
