import { closeSync, readFileSync, statSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';
import { EnvProblems, rawValue, readBoolean, readChoice, readInteger, type Env } from './env-readers.js';

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export interface SpillConfig {
  /** A stream is saved to a file once it exceeds this many bytes (C-MCP-6). */
  thresholdBytes: number;
  maxFileBytes: number;
  maxCommands: number;
  maxTotalBytes: number;
}

/** The agent's whole configuration, validated once at start (C-AG-10). Nothing else reads `process.env`. */
export interface AgentConfig {
  /** Non-empty → the agent starts assigned with this token (`SANDBOX_AUTH_TOKEN_FD`, else `SANDBOX_AUTH_TOKEN`). */
  authToken: string | undefined;
  /**
   * `SANDBOX_EGRESS_SOCKET` (local `--local-network proxy`, C-EGR-1): the agent relays TCP `127.0.0.1:<port>` (the
   * sandbox's `HTTP_PROXY`) to the egress gateway's Unix socket, for as long as the sandbox lives.
   */
  egress: { socketPath: string; port: number } | undefined;
  port: number;
  host: string;
  /** `SANDBOX_AGENT_SOCKET`: listen on this Unix socket instead of TCP. */
  socketPath: string | undefined;
  /**
   * `SANDBOX_AGENT_LISTEN_FD`: accept on this inherited, already listening socket (every local sandbox, issue 22):
   * the server binds it where the sandbox cannot reach, so no path a command can change leads to the agent.
   */
  listenFd: number | undefined;
  /** Initial working directory of the shell. */
  workdir: string;
  /** Where full outputs and the background log go; null when disabled (`SANDBOX_OUTPUT_DIR=off`). */
  outputDir: string | null;
  shell: string;
  /** Environment of the shell: the agent's own minus every `SANDBOX_*` variable, plus empty prompts. */
  shellEnv: Record<string, string>;
  defaultTimeoutSeconds: number;
  maxTimeoutSeconds: number;
  /** Per-stream in-memory buffer: half head, half tail (C-MCP-6). */
  outputBufferBytes: number;
  spill: SpillConfig;
  /** SIGTERM → SIGKILL grace for a timed-out or cancelled command tree (C-AG-7). */
  killGraceMs: number;
  /** After SIGKILL, how long to wait for the command to finish before the shell itself is judged stuck. */
  killSettleMs: number;
  /**
   * How long a stop (cancel, timeout) that came before bash began its command waits for that start before judging
   * the shell stuck and replacing it. Longer than `killSettleMs`: on a busy node bash may take a few hundred ms to
   * read a command, and replacing the shell loses the session's state (issue 11; queue-cancel.test.ts).
   */
  startWaitMs: number;
  logLevel: LogLevel;
  /** When set, the port is written there as `<port>\n` once listening (used by the local backend). */
  readyFd: number | undefined;
  /** Exit (killing the shell) when the parent process goes away (used by the local backend). */
  exitWithParent: boolean;
  /** `SANDBOX_DUMPABLE=1`: stay dumpable, so a debugger (and every command) can attach (issue 22 item 4). */
  dumpable: boolean;
}

export type ConfigResult = { ok: true; config: AgentConfig } | { ok: false; problems: string[] };

const KIB = 1024;
const MIB = 1024 * KIB;
const GIB = 1024 * MIB;

/** Variables, defaults and meanings; drives `--help` and mirrors docs/agent.md. */
export const CONFIG_HELP: ReadonlyArray<readonly [name: string, fallback: string, meaning: string]> = [
  ['SANDBOX_AUTH_TOKEN', '(unset)', 'bearer token; set → start assigned, unset → wait for POST /assign'],
  ['SANDBOX_AUTH_TOKEN_FD', '(unset)', 'inherited descriptor to read the bearer token from, then closed (wins over SANDBOX_AUTH_TOKEN; keeps it out of every environment)'],
  ['SANDBOX_EGRESS_SOCKET', '(unset)', 'Unix socket of the egress gateway; set → relay 127.0.0.1:SANDBOX_EGRESS_PORT to it'],
  ['SANDBOX_EGRESS_PORT', '3128', 'loopback port of the egress relay (the sandbox\'s HTTP_PROXY)'],
  ['SANDBOX_AGENT_PORT', '8090', 'TCP port; 0 picks a free port'],
  ['SANDBOX_AGENT_HOST', '0.0.0.0', 'listen address'],
  ['SANDBOX_AGENT_SOCKET', '(unset)', 'absolute path of a Unix socket to listen on instead of TCP (host and port are then unused)'],
  ['SANDBOX_AGENT_LISTEN_FD', '(unset)', 'inherited descriptor of a listening socket to accept on (wins over the socket, host and port)'],
  ['SANDBOX_WORKDIR', '(current directory)', 'initial working directory of the shell'],
  ['SANDBOX_OUTPUT_DIR', '<workdir>/.cli-mcp', 'full outputs of large commands and the background log; "off" disables'],
  ['SANDBOX_SHELL', 'bash', 'bash binary, name or path (started as `<shell> --norc --noprofile`; bash ≥ 4.1 required)'],
  ['SANDBOX_DEFAULT_TIMEOUT_SECONDS', '60', 'timeout when a request gives none (or ≤ 0)'],
  ['SANDBOX_MAX_TIMEOUT_SECONDS', '300', 'upper bound of any timeout'],
  ['SANDBOX_OUTPUT_BUFFER_BYTES', '262144', 'in-memory bytes kept per stream (half head, half tail)'],
  ['SANDBOX_SPILL_THRESHOLD_BYTES', '16384', 'a stream larger than this is saved to a file (≤ buffer/2)'],
  ['SANDBOX_SPILL_MAX_FILE_BYTES', '268435456', 'largest saved file; writing stops there'],
  ['SANDBOX_SPILL_MAX_COMMANDS', '20', 'saved outputs of at most this many recent commands are kept'],
  ['SANDBOX_SPILL_MAX_TOTAL_BYTES', '536870912', 'total size of saved outputs kept'],
  ['SANDBOX_KILL_GRACE_MS', '500', 'SIGTERM → SIGKILL grace when a command times out or is cancelled'],
  ['SANDBOX_LOG_LEVEL', 'info', `one of ${LOG_LEVELS.join(', ')} (JSON logs on stderr)`],
  ['SANDBOX_READY_FD', '(unset)', 'file descriptor that receives "<port>\\n" (or "unix\\n" with SANDBOX_AGENT_SOCKET) once listening'],
  ['SANDBOX_EXIT_WITH_PARENT', '0', '1 → exit (killing the shell) when the parent process dies'],
  ['SANDBOX_DUMPABLE', '0', '1 → stay dumpable: commands (and debuggers) may then trace the agent and read its memory'],
];

export function configHelpText(): string {
  const width = Math.max(...CONFIG_HELP.map(([name]) => name.length));
  const lines = CONFIG_HELP.map(([name, fallback, meaning]) => `  ${name.padEnd(width)}  ${meaning} [default: ${fallback}]`);
  return ['Usage: sandbox-agent [--help]', '', 'Sandbox agent: one persistent bash behind an HTTP API.', '',
    'Environment variables:', ...lines, ''].join('\n');
}

/** Reads an inherited descriptor to its end and closes it (`SANDBOX_AUTH_TOKEN_FD`); a port for tests. */
export type FdReader = (fd: number) => string;

const readAndClose: FdReader = (fd) => {
  try {
    return readFileSync(fd, 'utf8');
  } finally {
    closeSync(fd);
  }
};

/** Validates `env` into an AgentConfig, reporting every problem at once (C-AG-10). */
export function loadAgentConfig(env: Env = process.env, cwd: string = process.cwd(), readFd: FdReader = readAndClose): ConfigResult {
  const problems = new EnvProblems();
  const authToken = readAuthToken(env, problems, readFd);
  const egress = readEgress(env, problems);
  const port = readInteger(env, problems, 'SANDBOX_AGENT_PORT', 8090, 0, 65535);
  const host = rawValue(env, 'SANDBOX_AGENT_HOST')?.trim() || '0.0.0.0';
  const socketPath = readSocketPath(env, problems);
  const listenFd = rawValue(env, 'SANDBOX_AGENT_LISTEN_FD') === undefined ? undefined : readInteger(env, problems, 'SANDBOX_AGENT_LISTEN_FD', -1, 3, 65_535);
  const workdir = readWorkdir(env, problems, cwd);
  const outputDir = readOutputDir(env, workdir);
  const maxTimeoutSeconds = readInteger(env, problems, 'SANDBOX_MAX_TIMEOUT_SECONDS', 300, 1, 86_400);
  const defaultTimeoutSeconds = readInteger(env, problems, 'SANDBOX_DEFAULT_TIMEOUT_SECONDS', 60, 1, 86_400);
  if (defaultTimeoutSeconds > maxTimeoutSeconds) {
    problems.add('SANDBOX_DEFAULT_TIMEOUT_SECONDS', `must not exceed SANDBOX_MAX_TIMEOUT_SECONDS (${maxTimeoutSeconds})`);
  }
  const outputBufferBytes = readInteger(env, problems, 'SANDBOX_OUTPUT_BUFFER_BYTES', 256 * KIB, 2 * KIB, 64 * MIB);
  const spill: SpillConfig = {
    thresholdBytes: readInteger(env, problems, 'SANDBOX_SPILL_THRESHOLD_BYTES', 16 * KIB, 1, 32 * MIB),
    maxFileBytes: readInteger(env, problems, 'SANDBOX_SPILL_MAX_FILE_BYTES', 256 * MIB, 1, 64 * GIB),
    maxCommands: readInteger(env, problems, 'SANDBOX_SPILL_MAX_COMMANDS', 20, 1, 10_000),
    maxTotalBytes: readInteger(env, problems, 'SANDBOX_SPILL_MAX_TOTAL_BYTES', 512 * MIB, 1, 1024 * GIB),
  };
  // The spill file starts from the in-memory head, so nothing may have been dropped before the threshold.
  if (spill.thresholdBytes > Math.floor(outputBufferBytes / 2)) {
    problems.add('SANDBOX_SPILL_THRESHOLD_BYTES', `must not exceed half of SANDBOX_OUTPUT_BUFFER_BYTES (${Math.floor(outputBufferBytes / 2)})`);
  }
  const killGraceMs = readInteger(env, problems, 'SANDBOX_KILL_GRACE_MS', 500, 0, 60_000);
  const logLevel = readChoice(env, problems, 'SANDBOX_LOG_LEVEL', 'info', LOG_LEVELS);
  const readyFdRaw = rawValue(env, 'SANDBOX_READY_FD');
  const readyFd = readyFdRaw === undefined ? undefined : readInteger(env, problems, 'SANDBOX_READY_FD', -1, 0, 65_535);
  const exitWithParent = readBoolean(env, problems, 'SANDBOX_EXIT_WITH_PARENT', false);
  const dumpable = readBoolean(env, problems, 'SANDBOX_DUMPABLE', false);
  const shell = rawValue(env, 'SANDBOX_SHELL') ?? 'bash';

  if (problems.list.length > 0) return { ok: false, problems: problems.list };
  return {
    ok: true,
    config: {
      authToken,
      egress,
      port, host, socketPath, listenFd, workdir, outputDir, shell,
      shellEnv: buildShellEnv(env),
      defaultTimeoutSeconds, maxTimeoutSeconds, outputBufferBytes, spill,
      killGraceMs, killSettleMs: 300, startWaitMs: 2_000, logLevel, readyFd, exitWithParent, dumpable,
    },
  };
}

/**
 * The local backend hands the token over on a pipe (SANDBOX_AUTH_TOKEN_FD) rather than in the environment: under
 * bubblewrap the sandbox's pid 1 is bubblewrap's own init, whose `/proc/1/environ` — the environment it was started
 * with — every command can read (issue 20: no agent token visible to bash).
 */
function readAuthToken(env: Env, problems: EnvProblems, readFd: FdReader): string | undefined {
  if (rawValue(env, 'SANDBOX_AUTH_TOKEN_FD') === undefined) return rawValue(env, 'SANDBOX_AUTH_TOKEN');
  const fd = readInteger(env, problems, 'SANDBOX_AUTH_TOKEN_FD', -1, 3, 65_535);
  if (fd < 0) return undefined;
  try {
    return readFd(fd).trim() || undefined;
  } catch (error) {
    problems.add('SANDBOX_AUTH_TOKEN_FD', `cannot read descriptor ${fd}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`);
    return undefined;
  }
}

function readEgress(env: Env, problems: EnvProblems): AgentConfig['egress'] {
  const socketPath = readSocketPath(env, problems, 'SANDBOX_EGRESS_SOCKET');
  const port = readInteger(env, problems, 'SANDBOX_EGRESS_PORT', 3128, 1, 65_535);
  return socketPath === undefined ? undefined : { socketPath, port };
}

/** Linux keeps at most 107 bytes of a socket path (sun_path). */
const MAX_SOCKET_PATH_BYTES = 107;

function readSocketPath(env: Env, problems: EnvProblems, name = 'SANDBOX_AGENT_SOCKET'): string | undefined {
  const raw = rawValue(env, name);
  if (raw === undefined) return undefined;
  if (!isAbsolute(raw)) problems.add(name, 'must be an absolute path', raw);
  else if (Buffer.byteLength(raw) > MAX_SOCKET_PATH_BYTES) problems.add(name, `must be at most ${MAX_SOCKET_PATH_BYTES} bytes long`);
  return raw;
}

function readWorkdir(env: Env, problems: EnvProblems, cwd: string): string {
  const raw = rawValue(env, 'SANDBOX_WORKDIR');
  const dir = raw === undefined ? cwd : resolve(cwd, raw);
  try {
    if (!statSync(dir).isDirectory()) problems.add('SANDBOX_WORKDIR', 'is not a directory', raw ?? dir);
  } catch {
    problems.add('SANDBOX_WORKDIR', 'does not exist or is not accessible', raw ?? dir);
  }
  return dir;
}

function readOutputDir(env: Env, workdir: string): string | null {
  const raw = rawValue(env, 'SANDBOX_OUTPUT_DIR');
  if (raw === undefined) return join(workdir, '.cli-mcp');
  if (raw.trim().toLowerCase() === 'off') return null;
  return isAbsolute(raw) ? raw : resolve(workdir, raw);
}

/** The agent's env minus `SANDBOX_*` (the token must not be readable by commands), plus empty prompts (Go §9.4). */
export function buildShellEnv(env: Env): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) {
    if (value !== undefined && !name.startsWith('SANDBOX_')) out[name] = value;
  }
  out.PS1 = '';
  out.PS2 = '';
  return out;
}
