/** A BUILT `cli-mcp-egress` process (bin/cli-mcp-egress.js): logs from stderr, audit lines from stdout. */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { cleanEnv, runCli, type CliRun } from '../../../e2e/mcp/support/server-process.js';

const REPO_ROOT = fileURLToPath(new URL('../../../../', import.meta.url));
export const EGRESS_BIN = `${REPO_ROOT}bin/cli-mcp-egress.js`;
const EGRESS_ENTRY = `${REPO_ROOT}dist/egress-gateway/main.js`;

/** Why built-gateway tests cannot run here (printed and skipped), or undefined. */
export const egressSkipReason: string | undefined = existsSync(EGRESS_ENTRY)
  ? undefined
  : `the egress gateway is not built (${EGRESS_ENTRY}); run: node scripts/build.mjs egress-gateway`;

export interface EgressProcess {
  readonly child: ChildProcess;
  readonly proxyPort: number;
  readonly adminUrl: string;
  logs(): Array<Record<string, unknown>>;
  audit(): Array<Record<string, unknown>>;
  untilLog(message: string, timeoutMs?: number): Promise<Record<string, unknown>>;
  readonly exited: Promise<number | null>;
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

function jsonLines(stream: NodeJS.ReadableStream, into: Array<Record<string, unknown>>, onLine: (line: string, entry?: Record<string, unknown>) => void): void {
  createInterface({ input: stream }).on('line', (line) => {
    try {
      const entry = JSON.parse(line) as Record<string, unknown>;
      into.push(entry);
      onLine(line, entry);
    } catch {
      onLine(line);
    }
  });
}

/** Starts the built gateway with both ports 0 and resolves once it logs `listening` (after its CA is loaded). */
export async function startEgressProcess(args: readonly string[]): Promise<EgressProcess> {
  const child = spawn(process.execPath, [EGRESS_BIN, '--proxy-port', '0', '--admin-port', '0', ...args], { cwd: REPO_ROOT, env: cleanEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
  const logs: Array<Record<string, unknown>> = [];
  const audit: Array<Record<string, unknown>> = [];
  const waiters: Array<{ message: string; resolve: (line: Record<string, unknown>) => void }> = [];
  let stderr = '';
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  jsonLines(child.stderr!, logs, (line, entry) => {
    stderr += `${line}\n`;
    for (const waiter of waiters.splice(0)) {
      if (entry?.msg === waiter.message) waiter.resolve(entry);
      else waiters.push(waiter);
    }
  });
  jsonLines(child.stdout!, audit, () => undefined);
  const untilLog = (message: string, timeoutMs = 30_000): Promise<Record<string, unknown>> => {
    const found = logs.find((entry) => entry.msg === message);
    if (found) return Promise.resolve(found);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`cli-mcp-egress logged no "${message}" within ${timeoutMs} ms:\n${stderr}`)), timeoutMs);
      waiters.push({ message, resolve: (line) => (clearTimeout(timer), resolve(line)) });
      void exited.then((code) => reject(new Error(`cli-mcp-egress exited with ${code}:\n${stderr}`)));
    });
  };
  let listening: Record<string, unknown>;
  try {
    listening = await untilLog('listening', 60_000);
  } catch (error) {
    child.kill('SIGKILL');
    await exited;
    throw error;
  }
  return {
    child,
    proxyPort: Number(listening.proxy_port),
    adminUrl: `http://127.0.0.1:${String(listening.admin_port)}`,
    logs: () => [...logs],
    audit: () => [...audit],
    untilLog,
    exited,
    stop: async (signal = 'SIGTERM') => {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return exited;
    },
  };
}

/** Runs the built gateway to completion (flag and file errors, --help). */
export function runEgressCli(args: readonly string[]): Promise<CliRun> {
  return runCli(args, {}, EGRESS_BIN);
}
