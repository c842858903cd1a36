/**
 * Wire types of the sandbox agent's HTTP API (contract §4). The server (`AgentClient`) and the agent both import
 * these, so the two ends cannot drift apart.
 */

// The error codes are part of the wire (C-AG-15); the agent's bundle takes wire.js alone (scripts/bundle-agent.mjs).
export * from './agent-error.js';
export * from './timeout.js';

/** Default port of the sandbox agent (C-AG-10). */
export const AGENT_DEFAULT_PORT = 8090;

/** Largest accepted request body for `/exec`, `/assign` and `/cancel` (C-AG-1: larger → 413). */
export const AGENT_MAX_BODY_BYTES = 1024 * 1024;

/** Exact notice that starts stderr of the first command in a replaced shell (C-AG-8; U+2014 em dash). */
export const STATE_RESET_NOTICE = '[session state was reset \u2014 previous bash process exited]';

/** `POST /exec` body. */
export interface ExecRequest {
  /** Shell text, run verbatim in the persistent shell. Must be non-empty. */
  command: string;
  /** Seconds; absent, null or ≤ 0 → agent default (60); above the agent max (300) → max. */
  timeout?: number | null;
  /**
   * Caller-chosen id (≤ 128 chars of [A-Za-z0-9._:-]) that `/cancel` and `/output` can target (C-AG-4). The server
   * derives it from the issuing client's id and the JSON-RPC id, so a `notifications/cancelled` arriving at any
   * replica can name it (C-MCP-9). It does NOT deduplicate: JSON-RPC ids restart with every client; an id several
   * live commands share names none of them.
   */
  request_id?: string;
  /**
   * Retry safety (≤ 128 chars of [A-Za-z0-9._:-]): an `/exec` whose key matches a running command joins it, one
   * whose key matches one of the last results returns that result without running the command again.
   */
  idempotency_key?: string;
  /** Run in a pseudo-terminal (C-AG-11): merged stream, CR/LF normalised, ANSI stripped. */
  tty?: boolean;
  /**
   * Seconds after which the call returns even though the command still runs (C-MCP-11): the command becomes a
   * background job of the session shell when it can (`yield_mode: 'job'`). Measured from when the agent received
   * the request. Absent or ≤ 0: the call lasts as long as the command. Not for tty commands.
   */
  yield_after?: number;
}

/** How a command still running at the yield point goes on (C-MCP-11); see ExecResponse.yield_mode. */
export type YieldMode = 'job' | 'shell' | 'queued' | 'waiting';

/** `exit_code` of a result whose command is still running (`running: true`): never a real exit status. */
export const RUNNING_EXIT_CODE = -1;

/**
 * `POST /exec` 200 body, for every command outcome (non-zero exit, timeout, cancel, shell death).
 *
 * Output of each stream is kept within the agent's buffer: when a stream is larger, `stdout` holds its head and
 * `stdout_tail` its tail, and the middle (`stdout_omitted_bytes` bytes, `stdout_omitted_lines` newlines) is only in
 * the saved file `stdout_file` (when saving is enabled). Trailing newlines are trimmed from the end of the stream.
 */
export interface ExecResponse {
  stdout: string;
  stderr: string;
  exit_code: number;
  duration_ms: number;
  /**
   * The timeout the agent applied to this command, in seconds, after its own default/max rules (C-AG-14): results
   * name this deadline, never one the caller assumed. Absent from agents older than this field.
   */
  timeout_seconds?: number;
  /** The deadline passed and the command's process tree was killed (exit_code 137). */
  timed_out: boolean;
  /** `/cancel` or a client disconnect stopped the command (exit_code 130). */
  cancelled: boolean;
  /** Some output is not in `stdout`/`stderr` (see the `_tail` and `_omitted_*` fields). */
  truncated: boolean;
  /** This command ran in a fresh shell because the previous one died (stderr starts with STATE_RESET_NOTICE). */
  state_reset: boolean;
  /** Exact byte counts of everything the command wrote to each stream. */
  stdout_bytes: number;
  stderr_bytes: number;
  /** Tail of the stream when it was truncated (absent otherwise). */
  stdout_tail?: string;
  stderr_tail?: string;
  stdout_omitted_bytes?: number;
  stdout_omitted_lines?: number;
  stderr_omitted_bytes?: number;
  stderr_omitted_lines?: number;
  /** Absolute path (inside the sandbox) of the full output of this stream, when it was saved. */
  stdout_file?: string;
  stderr_file?: string;
  /** The stream looked binary (NUL bytes); its text is lossy. */
  stdout_binary?: boolean;
  stderr_binary?: boolean;
  /**
   * C-MCP-11: the call returned at its yield point and the command is still running; `exit_code` is then
   * RUNNING_EXIT_CODE (-1) and stdout/stderr are the output so far.
   */
  running?: boolean;
  /**
   * With `running`: `job` — it is now a background job of the session shell (`job`, `job_pid`, and its further
   * output goes to `stdout_file`/`stderr_file`); `shell` — it runs in the session shell itself and cannot be
   * detached (`yield_reason` says why): the shell stays busy until it ends or times out; `queued` — this command
   * never started because an earlier one still holds the shell (its output so far is shown); `waiting` — a `wait`
   * was interrupted at the yield point, the jobs it waited for keep running.
   */
  yield_mode?: YieldMode;
  /** Bash job spec of the detached command, e.g. `%1` (`yield_mode: 'job'`). */
  job?: string;
  /** Process id of the job (its process group leader). */
  job_pid?: number;
  /** Why the command could not be detached (`yield_mode: 'shell'`). */
  yield_reason?: string;
  /**
   * C-MCP-15: background jobs of the session shell (made by a yield or started with `&`), and commands that held the
   * shell past their yield point, that ended since the previous result; each is reported once, in the first result
   * after its end. Absent when none ended.
   */
  ended_jobs?: EndedJob[];
}

/** One ended job or held command (C-MCP-15), see ExecResponse.ended_jobs. */
export interface EndedJob {
  /** Bash job spec (`%1`); absent for a command that held the shell (yield_mode `shell`). */
  job?: string;
  /** The job's last process (its status is the job's). */
  pid?: number;
  /** Exit status, 128 + N when a signal ended it (bash's own convention). */
  exit_code: number;
  /** bash's words for a signal death (`Killed`, `Terminated`…), absent for a normal exit. */
  signal?: string;
  /** From when it started (the command that made the job) to when the agent saw it end. */
  duration_ms: number;
  stdout_file?: string;
  stderr_file?: string;
  /** A held command's output after its yield point (its end, when long; all of it is in the files). */
  stdout?: string;
  stderr?: string;
  /** The jobs a held `wait` waited for (`%1`, or `all jobs`). */
  waited_for?: string;
}

/** `POST /assign` body (C-AG-2). */
export interface AssignRequest {
  token: string;
}

/** `POST /cancel` body (C-AG-4): without `request_id`, cancels the running command. */
export interface CancelRequest {
  request_id?: string;
}

/** `POST /cancel` 200 body. */
export interface CancelResponse {
  /** Whether a running or queued command was found and stopped. */
  cancelled: boolean;
  /**
   * No command of that `request_id` had arrived: one that arrives within a few seconds is answered as cancelled
   * without running (C-MCP-9: a cancel forwarded by another replica can overtake its `/exec`).
   */
  waiting?: boolean;
}

/** `POST /output` body: peek at the running command's latest output (C-MCP-10 progress). */
export interface OutputRequest {
  /** Only when the running command has this request id; absent → whatever runs. */
  request_id?: string;
}

/** Most bytes of each stream `/output` returns: the latest ones, cut at a UTF-8 boundary. */
export const AGENT_OUTPUT_PEEK_BYTES = 4096;

/** `POST /output` 200 body. */
export interface OutputResponse {
  /** Whether a (matching) command is running; the other fields are absent when not. */
  running: boolean;
  /** The latest output of each stream so far (at most AGENT_OUTPUT_PEEK_BYTES bytes; a tty command's is stdout). */
  stdout?: string;
  stderr?: string;
  /** Bytes each stream has written so far. */
  stdout_bytes?: number;
  stderr_bytes?: number;
}

/** Error envelope of every non-200 agent answer: `code` decides (AgentErrorCode), `error` is for humans. */
export interface AgentErrorBody {
  error: string;
  code: string;
}

/** `GET /health` 200 body (C-AG-3). */
export interface HealthResponse {
  status: 'ok';
  assigned: boolean;
  busy: boolean;
  /** False when the agent's commands can trace it and read its memory (issue 22 item 4); absent from older agents. */
  nonDumpable?: boolean;
}
