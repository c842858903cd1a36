import { existsSync, readlinkSync } from 'node:fs';
import type { BackgroundLog } from './jobs/background-log.js';
import type { BashProcess } from './process/bash-process.js';
import { newNonce } from './script/command-script.js';
import { settlesWithin } from './process/command-stopper.js';
import { PipeCommand, type ByteSink } from './pipe-command.js';
import type { ShellState } from './tty-command.js';

/**
 * Captures what a tty command should inherit from the persistent shell (C-AG-11): the cwd from
 * /proc/<bash>/cwd (bash really chdir()s), and — through one internal command on the shell — its aliases and
 * functions (`alias -p; declare -f`, output designed to be re-read by bash) and its exported environment
 * (`compgen -e` names with their values, NUL-separated so any value survives; builtins only, no `env` binary needed).
 * Non-exported variables and shell options are not carried.
 */
const STATE_SCRIPT =
  "\\builtin alias -p; \\builtin declare -f; \\builtin printf '\\0'; " +
  '\\builtin compgen -e | while IFS= \\builtin read -r __climcp_n; do ' +
  "\\builtin printf '%s=%s\\0' \"$__climcp_n\" \"${!__climcp_n}\"; done";
const STATE_TIMEOUT_MS = 10_000;
const MAX_STATE_BYTES = 16 * 1024 * 1024;

/** Collects an internal script's output in memory (bounded). */
export class ByteCollector implements ByteSink {
  readonly chunks: Buffer[] = [];
  private size = 0;
  overflow = false;

  push(chunk: Buffer): boolean {
    this.size += chunk.length;
    if (this.size > MAX_STATE_BYTES) this.overflow = true;
    else this.chunks.push(Buffer.from(chunk));
    return true;
  }

  onDrain(callback: () => void): void {
    callback();
  }
}

export async function captureShellState(
  shell: BashProcess,
  background: BackgroundLog,
  fallback: { cwd: string; env: Record<string, string> },
): Promise<ShellState> {
  let cwd = fallback.cwd;
  try {
    const link = readlinkSync(`/proc/${shell.pid}/cwd`);
    if (existsSync(link)) cwd = link;
  } catch {
    // Keep the configured workdir.
  }
  const stdout = new ByteCollector();
  const nonce = newNonce();
  const command = new PipeCommand(shell, nonce, { stdout, stderr: new ByteCollector() }, background);
  // Internal: parsed without the user's aliases (`alias do=…` must not break the loop below, C-AG-12).
  command.begin(STATE_SCRIPT, nonce, { internal: true });
  const settled = await settlesWithin(command.done, STATE_TIMEOUT_MS);
  if (!settled || stdout.overflow) return { cwd, env: fallback.env, prelude: '' };
  const end = await command.done;
  if (end.kind !== 'finished') return { cwd, env: fallback.env, prelude: '' };
  const all = Buffer.concat(stdout.chunks);
  const split = all.indexOf(0);
  if (split < 0) return { cwd, env: fallback.env, prelude: '' };
  const env: Record<string, string> = {};
  for (const entry of all.subarray(split + 1).toString('utf8').split('\0')) {
    const eq = entry.indexOf('=');
    if (eq > 0) env[entry.slice(0, eq)] = entry.slice(eq + 1);
  }
  // An empty result means the capture did not work (e.g. no `compgen`): better the agent's env than none.
  return { cwd, env: Object.keys(env).length > 0 ? env : fallback.env, prelude: all.subarray(0, split).toString('utf8') };
}
