import { spawn, type ChildProcess } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect } from 'vitest';

/** Repository root (this file is test/e2e/mcp/support/…). */
export const REPO_ROOT = fileURLToPath(new URL('../../../../', import.meta.url));
export const SERVER_BIN = join(REPO_ROOT, 'bin/cli-mcp-server.js');
// The bundle users run (bin/cli-mcp-server.js; scripts/bundle-nest-app.mjs), not the unbundled build it is made from.
const SERVER_ENTRY = join(REPO_ROOT, 'dist/mcp-server/main.js');
const AGENT_ENTRY = join(REPO_ROOT, 'dist/sandbox-agent/main.js');

/** The e2e tier runs the built binaries; say how to get them instead of failing obscurely. */
export function assertBuilt(): void {
  for (const entry of [SERVER_ENTRY, AGENT_ENTRY]) {
    if (!existsSync(entry)) throw new Error(`${entry} is missing: run \`npm run build\` before the e2e tests`);
  }
}

/** Environment of a server under test: the caller's, minus any CLI_MCP_* that would change its configuration. */
export function cleanEnv(extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (value !== undefined && !key.startsWith('CLI_MCP_')) env[key] = value;
  }
  return { ...env, ...extra };
}

export function tempDir(prefix: string): string {
  return mkdtempSync(join(tmpdir(), `cli-mcp-e2e-${prefix}-`));
}

/**
 * The ordinary user the root-run suite starts a server as (`runAs`), to test the unprivileged path. Not `nobody`
 * (65534): a root server's sandboxes all run as 65534, and this server's sandboxes are bounded by RLIMIT_NPROC
 * (no cgroup for an ordinary user here), which the host counts per UID: beside another file's fork bomb
 * (bounds.test.ts) every sandbox start of such a server failed ("bwrap: Creating new namespace failed: Resource
 * temporarily unavailable"). No passwd entry, as with a container's arbitrary UID (issue 19).
 */
export const UNPRIVILEGED_USER = { uid: 64_999, gid: 64_999 } as const;

export interface ServerProcess {
  readonly child: ChildProcess;
  readonly pid: number;
  /** `http://127.0.0.1:<port>` (HTTP only). */
  readonly baseUrl: string;
  /** `<baseUrl>/mcp`. */
  readonly mcpUrl: string;
  readonly stateDir: string;
  /** Parsed JSON log lines from stderr so far. */
  logs(): Array<Record<string, unknown>>;
  /** Raw stderr so far. */
  stderr(): string;
  /** Resolves with the exit code once the process has exited. */
  readonly exited: Promise<number | null>;
  /** Sends `signal` (default SIGTERM) and waits for the exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

export interface StartOptions {
  readonly args?: readonly string[];
  readonly env?: Record<string, string>;
  readonly stateDir?: string;
  /** Run the server as this user (util-linux `setpriv`; the caller must be root); its own state dir is theirs. */
  readonly runAs?: { uid: number; gid: number };
}

/**
 * Starts the built server with `--transport http --address 127.0.0.1:0` and a private state dir, and resolves
 * once its `listening` log line names the bound URL.
 */
export async function startHttpServer(options: StartOptions = {}): Promise<ServerProcess> {
  assertBuilt();
  const ownDir = options.stateDir === undefined ? tempDir('state') : undefined;
  const stateDir = options.stateDir ?? join(ownDir!, 'state');
  const server = [SERVER_BIN, '--transport', 'http', '--address', '127.0.0.1:0', '--state-dir', stateDir, ...(options.args ?? [])];
  const { runAs } = options;
  if (runAs && ownDir) chownSync(ownDir, runAs.uid, runAs.gid);
  const [command, args] = runAs
    ? ['setpriv', [`--reuid=${runAs.uid}`, `--regid=${runAs.gid}`, '--clear-groups', '--inh-caps=-all', '--', process.execPath, ...server]]
    : [process.execPath, server];
  const child = spawn(command, args, { cwd: REPO_ROOT, env: cleanEnv(options.env), stdio: ['ignore', 'pipe', 'pipe'] });
  const stderrChunks: string[] = [];
  const logs: Array<Record<string, unknown>> = [];
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const listening = new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stderr! }).on('line', (line) => {
      stderrChunks.push(`${line}\n`);
      try {
        const entry = JSON.parse(line) as Record<string, unknown>;
        logs.push(entry);
        if (entry.msg === 'listening' && typeof entry.url === 'string') resolve(entry.url);
      } catch {
        // not a log line (e.g. a startup error message)
      }
    });
    void exited.then((code) => reject(new Error(`server exited with ${code} before listening:\n${stderrChunks.join('')}`)));
  });
  child.stdout!.resume();
  const mcpUrl = await listening.catch((error: unknown) => {
    if (ownDir) removeDir(ownDir);
    throw error;
  });
  const stop = async (signal: NodeJS.Signals = 'SIGTERM'): Promise<number | null> => {
    if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    const code = await exited;
    // A state dir the caller did not choose is this server's own: it goes with the server (C-TEST-1).
    if (ownDir) removeDir(ownDir);
    return code;
  };
  return {
    child,
    pid: child.pid!,
    baseUrl: mcpUrl.replace(/\/mcp$/, ''),
    mcpUrl,
    stateDir,
    logs: () => [...logs],
    stderr: () => stderrChunks.join(''),
    exited,
    stop,
  };
}

export interface CliRun {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs a built binary (default: the server) to completion (flag errors, --help, --version). */
export function runCli(args: readonly string[], env: Record<string, string> = {}, bin = SERVER_BIN): Promise<CliRun> {
  assertBuilt();
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [bin, ...args], { cwd: REPO_ROOT, env: cleanEnv(env), stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** Host pids whose command line contains `text` (e.g. a `sleep` with a unique duration). */
export function processesMatching(text: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0').join(' ');
      if (cmdline.includes(text) && Number(entry) !== process.pid) pids.push(Number(entry));
    } catch {
      // the process exited while we looked
    }
  }
  return pids;
}

/** Every live descendant of `pid` (children, grandchildren …), from /proc. */
export function descendantsOf(pid: number): number[] {
  const children = new Map<number, number[]>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      children.set(parent, [...(children.get(parent) ?? []), Number(entry)]);
    } catch {
      // exited meanwhile
    }
  }
  const found: number[] = [];
  const queue = [pid];
  while (queue.length > 0) {
    for (const child of children.get(queue.shift()!) ?? []) {
      found.push(child);
      queue.push(child);
    }
  }
  return found;
}

/**
 * `node [the agent's Node flags] <entry>` (`/proc/<pid>/cmdline`): the entry is the last argument; Node is a path
 * outside a sandbox and `/proc/self/fd/N` inside one (launch-spec.ts).
 */
export function isAgentCommandLine(cmdline: string): boolean {
  const argv = cmdline.split('\0').filter(Boolean);
  const program = argv[0] ?? '';
  const entry = argv.at(-1) ?? '';
  return (/(^|\/)node$/.test(program) && entry.endsWith('dist/sandbox-agent/main.js'))
    || (/^\/proc\/self\/fd\/\d+$/.test(program) && entry === '/.cli-mcp/agent/main.js');
}

/**
 * Processes running the built sandbox agent with a workspace under `stateDir`: directly (isolation none: the
 * state dir is in its environment), or inside bubblewrap, where the agent runs `/proc/self/fd/N
 * /.cli-mcp/agent/main.js` (Node from an inherited descriptor) and the state dir is on the command line of the
 * bubblewrap process above it.
 */
export function agentsOf(stateDir: string): number[] {
  const read = (pid: number, file: string): string => {
    try {
      return readFileSync(`/proc/${pid}/${file}`, 'utf8');
    } catch {
      return '';
    }
  };
  const parentOf = (pid: number): number => {
    const stat = read(pid, 'stat');
    return stat === '' ? 0 : Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
  };
  const isAgent = (pid: number): boolean => isAgentCommandLine(read(pid, 'cmdline'));
  const mentions = (pid: number): boolean => read(pid, 'cmdline').includes(stateDir) || read(pid, 'environ').includes(stateDir);
  return [...processesMatching('dist/sandbox-agent/main.js'), ...processesMatching('/.cli-mcp/agent/main.js')]
    .filter((pid, index, all) => all.indexOf(pid) === index && isAgent(pid))
    .filter((pid) => {
      for (let at = pid; at > 1; at = parentOf(at)) if (mentions(at)) return true;
      return false;
    });
}

/**
 * One built server for the enclosing describe block: started before its tests, stopped after them (it must exit
 * 0) with its state dir removed. Hooks the block registers later run before the stop (vitest runs after-hooks
 * as a stack), so clients can be closed first.
 */
export function useHttpServer(options: StartOptions = {}): () => ServerProcess {
  let server: ServerProcess | undefined;
  beforeAll(async () => {
    server = await startHttpServer(options);
  });
  afterAll(async () => {
    if (!server) return;
    expect(await server.stop()).toBe(0);
  });
  return () => {
    if (!server) throw new Error('the server has not started');
    return server;
  };
}

/** Sessions with a workspace in the local backend's state dir (none until something acquires a sandbox). */
export function sessionDirs(server: ServerProcess): string[] {
  const dir = join(server.stateDir, 'sessions');
  return existsSync(dir) ? readdirSync(dir) : [];
}

export function removeDir(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
}

/**
 * Registers beforeAll/afterAll for a stdio suite: the built server is there, and a state dir of the suite's own
 * (removed afterwards). Returns the argv that makes a stdio server of session `sessionId` on it.
 */
export function useStdioState(sessionId: string, args: readonly string[] = []): () => string[] {
  let dir: string | undefined;
  beforeAll(() => {
    assertBuilt();
    dir = tempDir(sessionId);
  });
  afterAll(() => dir && removeDir(dir));
  return () => {
    if (!dir) throw new Error('the stdio suite has not started');
    return ['--session-id', sessionId, '--state-dir', join(dir, 'state'), ...args];
  };
}
