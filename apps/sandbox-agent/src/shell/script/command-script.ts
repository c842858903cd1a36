/**
 * The text the agent writes to the persistent bash (C-AG-5, C-AG-6, C-AG-12). Design, verified with bash 5.2:
 *
 * - The command travels as ONE single-quoted assignment and runs through `eval`, so a syntax error (unterminated
 *   quote or heredoc, a lone `}`, a trailing backslash) stays inside eval and can never swallow the protocol lines
 *   that follow (Go §18 item 11).
 * - The protocol's own stdout/stderr are copies made at start-up (`{__climcp_o}`, `{__climcp_e}`, fds ≥ 10). The
 *   command group redirects 1 and 2 FROM those copies, so bash saves and restores fds 1/2 around the group: an
 *   `exec >&-` or `exec >file` inside the command cannot break framing. (`1>&1` would not work: bash skips a
 *   redirection onto the same fd and then has nothing to restore.) The copies themselves are closed for the
 *   command's duration (and restored after), so commands inherit nothing but fds 0-2.
 * - Markers are a random nonce, printed with `printf '%s%s' prefix nonce` so the marker never appears literally in
 *   the script (nothing echoed by `set -v` or `set -x` can match: xtrace prints the \x1f prefix as `$'\037…'`), and
 *   they are found by a byte search, not per line, so output without a trailing newline works (Go §18 item 10).
 * - C-AG-12, the user's own definitions. Aliases are expanded when a line is PARSED, before keywords are
 *   recognised, so `alias do=…` or `alias done=…` would rewrite the protocol line itself: the chunk line is always
 *   parsed with `expand_aliases` OFF (the previous command's tail records whether the user had it on and turns it
 *   off; the head turns it back on just before the user's `eval` parses its string). Functions shadow every builtin
 *   and are looked up when a command RUNS, so every protocol command is `builtin …`, and `builtin` itself is kept a
 *   builtin: the tail enters POSIX mode by a mere assignment (`POSIXLY_CORRECT=y`; in POSIX mode the special
 *   builtins `export`/`unset` are found before functions), removes a user function named `builtin` (with a notice
 *   on the command's stderr), leaves POSIX mode and restores exactly the options POSIX mode changes. Keywords and
 *   function names inside SHELL_SETUP's functions were parsed before any user alias existed. The user's `set -x`/
 *   `set -v` are switched off in the tail and back on inside the next eval. Every expansion is quoted (a hostile
 *   `IFS`), every variable read tolerates `set -u`, and no protocol step returns non-zero outside a condition
 *   (`set -e`, ERR traps). Head and tail run with stdout/stderr on /dev/null (only the markers go to the saved
 *   copies), so a user's DEBUG/RETURN trap or `BASH_XTRACEFD=1|2` cannot print into the framing. Names starting
 *   with `__climcp_` are reserved.
 * - Stopping a command must also stop the REST of its command list (`sleep 30; rm -rf x` must not reach `rm` after a
 *   cancel): the eval runs inside a one-iteration `for` loop, and a `USR1` trap does `break 1000000`. The agent
 *   sends SIGUSR1 to the shell before killing the command's processes; bash runs the trap as soon as the foreground
 *   child dies (or between two builtins of a busy builtin loop), which leaves every loop, ours included, so the
 *   rest of the list is skipped while cwd/env are kept. The trap is re-installed with every command in case a user
 *   command replaced it; inside a shell function only that function's loops are left (then the kill sweep and,
 *   as a last resort, replacing the shell apply). It costs nothing while nothing is cancelled. The agent sends the
 *   signal only once the command's start marker arrived (the head installs the trap and clears `__climcp_s`
 *   before printing it): earlier, it would reach the previous command's trap outside any loop and be lost. The
 *   trap also sets `__climcp_s`, which the loop checks before the eval, for a signal landing between the two.
 * - Everything is ONE input line, parsed in full before eval runs: bash 5.2 leaves its parser confused after `eval`
 *   of a string ending in a backslash (a next input line starting with `{` is a syntax error, which ends a
 *   non-interactive shell), so nothing of the protocol may follow the eval on a later line.
 * - One read (issue 11): bash reads its stdin pipe one byte at a time (it must not read past a line) but a sourced
 *   regular file in one read(2). So the per-command line is short and fixed — `__climcp_g=<nonce>; builtin eval
 *   "$__climcp_P"` — and the body (`__climcp_c='…'`, the mode, the shape's words, the nonce again) is in the shell's
 *   body file (command-body.ts), sourced by the head before it turns the user's aliases on. `$__climcp_P` holds the
 *   protocol's part of the former line (head; the user's eval in its loop; tail), still ONE line parsed in full
 *   before anything runs; the user's eval stays at top level (no function, no `source`: `BASH_SOURCE`, `return`,
 *   `declare` behave as typed) — only xtrace shows one more `+` for the extra eval level. A body file that is not
 *   the one the line was written for (its nonce differs, or it is gone) runs a notice and fails; never a stale
 *   command. ≈ 280 fewer read(2) per command.
 */

import { nodeCrypto } from '@cli-mcp/auth';
import { CLEARED, TAKEN, type KeptStatus } from '../jobs/job-ledger.js';
import type { CommandShape } from './command-shape.js';
import { assembleProtocol } from './protocol-source.js';
import PROTOCOL_SOURCE from './protocol.sh';
import { singleQuote } from './single-quote.js';

/** First bytes of every marker; \x1f (unit separator) makes an accidental partial match in real output rare. */
export const MARKER_PREFIX = '\x1f__CLIMCP_';

/** Printed at the end of the command's stderr when the tail had to remove the user's function `builtin`. */
export const BUILTIN_REMOVED_NOTICE =
  "[cli-mcp: removed the shell function 'builtin' — the agent's protocol needs the real builtin of that name]";

/** Printed on the command's stderr when the body file did not hold this command (see `__climcp_b`). */
export const LOST_BODY_NOTICE = '[cli-mcp: the command did not reach the shell (its body file was changed); nothing ran]';

/**
 * Run once after the shell starts: the functions and variables of the protocol, from protocol.sh (its readable,
 * linted source: head `__climcp_b`, start markers `__climcp_h`, tail `__climcp_f`, channel move `__climcp_y`, the
 * kept-status `wait` `__climcp_wt`, and the fixed command text `$__climcp_P`), assembled by protocol-source.ts with
 * the values this module owns.
 */
export const SHELL_SETUP = assembleProtocol(PROTOCOL_SOURCE, { TAKEN, LOST_BODY_NOTICE, BUILTIN_REMOVED_NOTICE });

/** Random bytes drawn from the kernel 512 at a time: one `getrandom` per 64 nonces instead of one per command. */
const nonceBytes = Buffer.alloc(512);
let nonceOffset = nonceBytes.length;

/**
 * A fresh marker nonce per command: 64 random bits (an accidental match in output is ~2^-64 per position) in 16
 * hex characters, each nonce independent of every other (issue 11 kept this rather than one prefix per shell plus a
 * counter: a background job that once saw `$__climcp_g` could then predict every later marker).
 */
export function newNonce(): string {
  if (nonceOffset === nonceBytes.length) {
    nodeCrypto().randomFillSync(nonceBytes);
    nonceOffset = 0;
  }
  nonceOffset += 8;
  return nonceBytes.toString('hex', nonceOffset - 8, nonceOffset);
}

export function startMarker(nonce: string): Buffer {
  return Buffer.from(`${MARKER_PREFIX}${nonce}S`, 'latin1');
}

/** On stdout the end marker is followed by the decimal exit code and `\n`; on stderr it stands alone. */
export function endMarker(nonce: string): Buffer {
  return Buffer.from(`${MARKER_PREFIX}${nonce}E`, 'latin1');
}

export interface ChunkOptions {
  /** The agent's own script (tty state capture, job queries): parsed without the user's aliases. */
  internal?: boolean;
  /** What the yield point may do with the command (C-MCP-11); absent = stays in the shell. */
  shape?: CommandShape;
  /** The tail lists the shell's jobs (C-MCP-15, protocol.sh `__climcp_inline_jobs_listing`): the agent tracks jobs that may have ended. */
  listJobs?: boolean;
  /** Jobs bash forgot, by spec, with their kept status (C-MCP-15, protocol.sh `__climcp_wt`). */
  keptJobs?: ReadonlyArray<readonly [string, KeptStatus]>;
  /** Define the kept-status `wait` for this command (protocol.sh `__climcp_wt`). */
  keptWait?: boolean;
}

/** The mode byte after a start marker (see `__climcp_b`). */
export type RunMode = 'S' | 'J' | 'P' | 'W';

/**
 * The byte for each shape (issue 19: the letters say what they mean): S shell, J the last statement is a Job,
 * P Parenthesised — run as `( … )` from the start, W Wait.
 */
export const RUN_MODE = { shell: 'S', job: 'J', subshell: 'P', wait: 'W' } as const satisfies Record<CommandShape['kind'], RunMode>;

/** What the agent sends for one command: `body` goes to the shell's body file first, then `line` to its stdin. */
export interface CommandChunk {
  body: string;
  line: string;
}

/**
 * One chunk per command; `nonce` is fresh random hex. The command must not contain NUL (checked by the caller). The
 * line is short and the same for every command but its nonce; everything else is in the body bash sources.
 */
export function buildCommandChunk(command: string, nonce: string, options: ChunkOptions = {}): CommandChunk {
  const shape = options.shape ?? { kind: 'shell' };
  const mode = options.internal ? 'I' : RUN_MODE[shape.kind];
  const words = shape.kind === 'shell' || options.internal ? '' : shape.words.map(singleQuote).join(' ');
  const wordList = mode === 'S' || mode === 'I' ? '' : ` __climcp_W=(${words});`;
  return {
    body: `${options.listJobs ? '__climcp_J=1; ' : ''}${keptLines(options.keptJobs)}${options.keptWait ? '__climcp_u=1; ' : ''}__climcp_G=${nonce}; __climcp_m=${mode};${wordList} __climcp_c=${singleQuote(command)}\n`,
    line: `__climcp_g=${nonce}; builtin eval "$__climcp_P"\n`,
  };
}

function keptLines(kept: ChunkOptions['keptJobs']): string {
  return (kept ?? []).map(([spec, status]) =>
    status === CLEARED ? `builtin unset -v ${singleQuote(`__climcp_K[${spec}]`)}; ` : `__climcp_K[${singleQuote(spec)}]=${status}; `).join('');
}

/** The line that sets the shell's body file and its job file (the tail's job listing), after SHELL_SETUP. */
export function bodyFileLine(path: string, jobsPath: string): string {
  return `__climcp_F=${singleQuote(path)}; __climcp_R=${singleQuote(jobsPath)}\n`;
}

/** The line that moves the shell to a new output channel and continues the stopped job (`__climcp_y`). */
export function buildMoveChannelLine(paths: { stdout: string; stderr: string }, nonce: string): string {
  return `__climcp_y ${singleQuote(paths.stdout)} ${singleQuote(paths.stderr)} ${nonce}M\n`;
}

/** Printed on the new channel once the shell writes there. */
export function moveMarker(nonce: string): Buffer {
  return Buffer.from(`${MARKER_PREFIX}${nonce}M`, 'latin1');
}

/** Signal the agent sends to the shell to abandon the rest of the running command list (see above). */
export const STOP_LIST_SIGNAL = 'SIGUSR1';
