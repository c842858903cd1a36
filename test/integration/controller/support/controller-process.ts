/** A BUILT `sandbox-controller` process (bin/sandbox-controller.js) for tests that kill or signal it. */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { cleanEnv, runCli, type CliRun } from '../../../e2e/mcp/support/server-process.js';

const REPO_ROOT = fileURLToPath(new URL('../../../../', import.meta.url));
export const CONTROLLER_BIN = `${REPO_ROOT}bin/sandbox-controller.js`;
const CONTROLLER_ENTRY = `${REPO_ROOT}dist/sandbox-controller/main.js`;

/** Why built-controller tests cannot run here (printed and skipped), or undefined. */
export const controllerSkipReason: string | undefined = existsSync(CONTROLLER_ENTRY)
  ? undefined
  : `the controller is not built (${CONTROLLER_ENTRY}); run: node scripts/build.mjs sandbox-controller`;

export interface ControllerProcess {
  readonly child: ChildProcess;
  readonly baseUrl: string;
  logs(): Array<Record<string, unknown>>;
  /** Resolves with the first log line whose `msg` is `message`. */
  untilLog(message: string, timeoutMs?: number): Promise<Record<string, unknown>>;
  readonly exited: Promise<number | null>;
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/** Starts the built controller on 127.0.0.1:0 and resolves once it logs `listening`. */
export async function startControllerProcess(args: readonly string[], env: Record<string, string> = {}): Promise<ControllerProcess> {
  const child = spawn(process.execPath, [CONTROLLER_BIN, '--address', '127.0.0.1:0', ...args], { cwd: REPO_ROOT, env: cleanEnv(env), stdio: ['ignore', 'pipe', 'pipe'] });
  const logs: Array<Record<string, unknown>> = [];
  const waiters: Array<{ message: string; resolve: (line: Record<string, unknown>) => void }> = [];
  let stderr = '';
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  createInterface({ input: child.stderr! }).on('line', (line) => {
    stderr += `${line}\n`;
    try {
      const entry = JSON.parse(line) as Record<string, unknown>;
      logs.push(entry);
      for (const waiter of waiters.splice(0)) {
        if (entry.msg === waiter.message) waiter.resolve(entry);
        else waiters.push(waiter);
      }
    } catch {
      // not a log line
    }
  });
  child.stdout!.resume();
  const untilLog = (message: string, timeoutMs = 20_000): Promise<Record<string, unknown>> => {
    const found = logs.find((entry) => entry.msg === message);
    if (found) return Promise.resolve(found);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`controller logged no "${message}" within ${timeoutMs} ms:\n${stderr}`)), timeoutMs);
      waiters.push({ message, resolve: (line) => (clearTimeout(timer), resolve(line)) });
      void exited.then((code) => reject(new Error(`controller exited with ${code}:\n${stderr}`)));
    });
  };
  const listening = await untilLog('listening');
  return {
    child,
    baseUrl: String(listening.url),
    logs: () => [...logs],
    untilLog,
    exited,
    stop: async (signal = 'SIGTERM') => {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return exited;
    },
  };
}

/** Runs the built controller to completion (flag errors, --help, --version). */
export function runControllerCli(args: readonly string[], env: Record<string, string> = {}): Promise<CliRun> {
  return runCli(args, env, CONTROLLER_BIN);
}
