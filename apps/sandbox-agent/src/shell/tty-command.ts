import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stopCommand, type StopOutcome } from './process/command-stopper.js';
import { ignoresHangup, readProcTable } from './process/proc-table.js';
import { selectCommandTree } from './process/process-tree.js';
import type { StreamSink } from './output/stream-sink.js';
import { TerminalNormalizer } from './output/terminal-normalizer.js';

/** What a tty command inherits from the persistent shell (documented in docs/agent.md). */
export interface ShellState {
  cwd: string;
  env: Record<string, string>;
  /** `alias -p` and `declare -f` output of the shell: re-sourced so aliases and functions work. */
  prelude: string;
}

export interface TtyRun {
  shell: string;
  command: string;
  state: ShellState;
  deadline: number;
  signal: AbortSignal;
  sink: StreamSink;
  graceMs: number;
  settleMs: number;
  /** Called with the terminal's process (group) id once it runs, so a hard shutdown can kill it. */
  onStart(pid: number): void;
}

export interface TtyEnd {
  exitCode: number;
  stopReason: 'timeout' | 'cancel' | undefined;
}

// Sources the shell's aliases/functions, reads the command from a file (no argv size limit), then evals it.
const BOOTSTRAP = `shopt -s expand_aliases; . "$1"; IFS= read -r -d '' __climcp_c < "$2"; rm -f -- "$1" "$2"; eval "$__climcp_c"`;
const EOT = '\x04';
const EOF_INTERVAL_MS = 100;

type NodePty = typeof import('node-pty');
let nodePty: Promise<NodePty> | undefined;
let scratchDir: string | undefined;
let counter = 0;

/**
 * Runs one command in a pseudo-terminal (C-AG-11, opt-in `tty: true`) with the shell's cwd, exported environment,
 * aliases and functions. Output is one merged stream, normalised (CR/LF → LF, ANSI stripped); state changes do not
 * persist. node-pty is imported on first use only, keeping agent start-up fast.
 */
export async function runTtyCommand(run: TtyRun): Promise<TtyEnd> {
  nodePty ??= import('node-pty');
  const pty = await nodePty;
  scratchDir ??= mkdtempSync(join(tmpdir(), 'climcp-tty-'));
  const id = `${process.pid}-${++counter}`;
  const preludePath = join(scratchDir, `${id}.prelude`);
  const commandPath = join(scratchDir, `${id}.cmd`);
  writeFileSync(preludePath, run.state.prelude, { mode: 0o600 });
  writeFileSync(commandPath, run.command, { mode: 0o600 });

  const term = pty.spawn(run.shell, ['--norc', '--noprofile', '-c', BOOTSTRAP, 'bash', preludePath, commandPath], {
    name: 'xterm-256color',
    cols: 200,
    rows: 50,
    cwd: run.state.cwd,
    env: run.state.env,
    encoding: null,
  });
  run.onStart(term.pid);
  const normalizer = new TerminalNormalizer();
  let paused = false;
  term.onData((data: string | Buffer) => {
    const bytes = normalizer.push(typeof data === 'string' ? Buffer.from(data) : data);
    if (bytes.length === 0 || run.sink.push(bytes) || paused) return;
    paused = true;
    term.pause();
    run.sink.onDrain(() => {
      paused = false;
      term.resume();
    });
  });
  const exited = new Promise<{ exitCode: number; signal?: number }>((resolve) => term.onExit(resolve));
  // Stdin is an empty terminal: every read gets end-of-file (one ^D per read in canonical mode, hence repeated), so
  // prompts and REPLs end at once instead of waiting for the timeout. At most ~3000 bytes over a 300 s command.
  const sendEof = (): void => {
    try {
      term.write(EOT);
    } catch {
      // The terminal is closing.
    }
  };
  sendEof();
  const eofTicker = setInterval(sendEof, EOF_INTERVAL_MS);

  let stopReason: TtyEnd['stopReason'];
  let stopping: Promise<StopOutcome> | undefined;
  const stop = (reason: 'timeout' | 'cancel'): void => {
    if (stopReason) return;
    stopReason = reason;
    stopping = stopCommand(
      {
        select: () => selectCommandTree({
          table: readProcTable(), rootPid: term.pid, includeRoot: true, preexisting: new Set(),
          detachedByNohup: (pid) => ignoresHangup(pid) && !ignoresHangup(term.pid),
        }),
        killShell: () => signalGroup(term.pid),
        graceMs: run.graceMs,
        settleMs: run.settleMs,
      },
      exited,
    );
  };
  const timer = setTimeout(() => stop('timeout'), Math.max(0, run.deadline - Date.now()));
  const onAbort = (): void => stop('cancel');
  if (run.signal.aborted) onAbort();
  else run.signal.addEventListener('abort', onAbort, { once: true });

  const exit = await exited;
  clearInterval(eofTicker);
  clearTimeout(timer);
  run.signal.removeEventListener('abort', onAbort);
  await stopping;
  const rest = normalizer.flush();
  if (rest.length > 0) run.sink.push(rest);
  rmSync(preludePath, { force: true });
  rmSync(commandPath, { force: true });
  const exitCode = exit.signal ? 128 + exit.signal : exit.exitCode;
  return { exitCode, stopReason };
}

/** Removes the per-agent scratch directory of tty command files (at shutdown). */
export function removeTtyScratch(): void {
  if (scratchDir !== undefined) rmSync(scratchDir, { recursive: true, force: true });
  scratchDir = undefined;
}

function signalGroup(pid: number): void {
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // Already gone.
  }
}
