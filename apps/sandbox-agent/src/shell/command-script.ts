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

import { randomFillSync } from 'node:crypto';
import type { CommandShape } from './command-shape.js';
import { TAKEN, type KeptStatus } from './job-ledger.js';

/** First bytes of every marker; \x1f (unit separator) makes an accidental partial match in real output rare. */
export const MARKER_PREFIX = '\x1f__CLIMCP_';

/** Printed at the end of the command's stderr when the tail had to remove the user's function `builtin`. */
export const BUILTIN_REMOVED_NOTICE =
  "[cli-mcp: removed the shell function 'builtin' — the agent's protocol needs the real builtin of that name]";

/**
 * Removes a user function named `builtin` while in POSIX mode (entered and left by assignment, so no command can be
 * hijacked on the way). A readonly function of that name cannot be removed: the shell then exits with the
 * command's status and the next command runs in a fresh shell (C-AG-8).
 */
const removeBuiltinFunction = (status: string): string =>
  `if export -f builtin; then unset -f builtin || exit ${status}; __climcp_n=1; fi`;

const SLOW_RESTORE =
  'case :$__climcp_O: in *:inherit_errexit:*) ;; *) builtin shopt -u inherit_errexit;; esac; ' +
  'case :$__climcp_O: in *:shift_verbose:*) builtin shopt -s shift_verbose;; esac; ' +
  'case :$__climcp_O: in *:sourcepath:*) ;; *) builtin shopt -u sourcepath;; esac; ' +
  'case :$__climcp_O: in *:interactive_comments:*) ;; *) builtin shopt -u interactive_comments;; esac; ' +
  'case :$__climcp_O: in *:expand_aliases:*) __climcp_a=1;; *) __climcp_a=;; esac';

/**
 * Options POSIX mode turns on when entered, and `expand_aliases`/`shift_verbose`, which leaving it turns off: put
 * back as they were before (`$__climcp_O`, the saved BASHOPTS), and remember the user's `expand_aliases` in
 * `__climcp_a`. The middle branch is the usual state, matched in one step (BASHOPTS lists options alphabetically;
 * any other order only takes the slow, equally correct, branch).
 */
const RESTORE_OPTIONS =
  `case :$__climcp_O: in *:inherit_errexit:*|*:shift_verbose:*) ${SLOW_RESTORE};; ` +
  '*:expand_aliases:*:interactive_comments:*:sourcepath:*) builtin shopt -u inherit_errexit; __climcp_a=1;; ' +
  `*) ${SLOW_RESTORE};; esac`;

/**
 * Makes `builtin` a builtin again and leaves `expand_aliases` off for the next chunk line, remembering in
 * `__climcp_a` whether the user wants aliases. A user's own POSIX mode is kept. Inline text, not a function of its
 * own: a user's FUNCNEST=1 allows our functions one level and no deeper.
 */
const reset = (status: string): string =>
  'case :$SHELLOPTS: in ' +
  `*:posix:*) ${removeBuiltinFunction(status)}; ` +
  'if builtin shopt -q expand_aliases; then __climcp_a=1; builtin shopt -u expand_aliases; else __climcp_a=; fi;; ' +
  `*) __climcp_O=$BASHOPTS; POSIXLY_CORRECT=y; ${removeBuiltinFunction(status)}; unset POSIXLY_CORRECT; ${RESTORE_OPTIONS};; ` +
  'esac';

/** Sets `__climcp_s` too: a signal that lands between the head and the loop makes the loop skip the command. */
const STOP_TRAP = '__climcp_s=1; builtin break 1000000 2>/dev/null';

const COMMAND_REDIRECTIONS = '</dev/null >&"$__climcp_o" 2>&"$__climcp_e" {__climcp_o}>&- {__climcp_e}>&-';

/**
 * C-MCP-11, found by the shape oracle (shape-oracle.test.ts): stopping a job at the yield point gives the shell status
 * 147, which runs the user's ERR trap (`trap 'exit 1' ERR` would end the shell). A detachable mode falls back to S
 * when an ERR trap is set. bash 5.2 prints traps only to a stream, so `trap -p ERR` goes to a file next to the body
 * file (`$__climcp_F.t`): three syscalls, only for a command that runs a program anyway; a failed write means S too.
 * At top level, not in the head: a function does not see the ERR trap (it is not inherited without `set -E`).
 */
const ERR_TRAP_CHECK =
  '[[ $__climcp_m == S ]] || { builtin trap -p ERR >"$__climcp_F.t" && [[ ! -s $__climcp_F.t ]]; } || __climcp_m=S; ';

/**
 * What every command line evals (issue 11, "One read"): head, the user's eval in the one-iteration loop, tail — the
 * protocol's part of the former per-command line, now parsed from a variable instead of read from the pipe. One
 * group puts stdout/stderr on /dev/null for all three (round 4: head and tail had a group each; every redirection
 * costs bash ≈ 3 µs of fcntl/dup2/close, and opening /dev/null ≈ 2.5 µs more); the user's eval gets the pipes back
 * from its own group inside it.
 */
const COMMAND_TEXT =
  `{ __climcp_b; ${ERR_TRAP_CHECK}__climcp_h; ` +
  'for __climcp_l in 1; do [[ -z ${__climcp_s-} ]] || builtin break; ' +
  `{ builtin eval "$__climcp_x$__climcp_c"; } ${COMMAND_REDIRECTIONS}; done; ` +
  '__climcp_f "$?"; } >/dev/null 2>&1';

/**
 * C-MCP-15, jobs the model hears about: the tail appends `jobs -l` to the shell's job file (`$__climcp_R`) when the
 * body asked for it (`__climcp_J=1`: the agent tracks jobs that may have ended) or when `$!` changed during the
 * command (a job was started with `&`, or `bg` continued one) — on the common path, one string comparison and
 * nothing else. `${!:-}` tolerates `set -u` before any job exists. bash forgets a finished job once `jobs` has shown
 * it, so this listing is the one place its status is read; the agent keeps it (job-ledger.ts). `>>`: a listing
 * written by an internal command's tail survives until the agent reads the file. A failed redirection (the
 * directory was removed) must not make the tail return non-zero (`set -e`), hence `|| builtin true`.
 */
const JOBS_LISTING =
  'if [[ -n ${__climcp_J-} || ${!:-} != "${__climcp_k-}" ]]; then __climcp_J=; __climcp_k=${!:-}; ' +
  'builtin jobs -l >>"$__climcp_R" || builtin true; fi; ' +
  'if [[ -n ${__climcp_u-} ]]; then __climcp_u=; builtin unset -f wait; fi; ';

/**
 * What `wait %N` says of a job the user's own `wait`, `jobs` or `disown` took from bash's table (job-ledger.ts TAKEN):
 * true, where bash would say "no such job" of a job the session was told about. `$1` is expanded by the shell.
 */
const TAKEN_NOTICE =
  'bash: wait: $1: no longer a job of this shell: an earlier command in this session took it (its wait or jobs showed the exit status; disown lets it run untracked)';

/**
 * C-MCP-15, `wait %N` for a job bash forgot: once `jobs` listed a job's end, bash drops the job (`wait %N` → "no such
 * job"; a job that was stopped and continued is not in bash's by-pid status list either). The agent keeps each
 * listed status and sends `__climcp_K[%N]=STATUS` with the next body. Only for a command whose every `wait` is
 * `wait %N` of such a job (the agent checks: `__climcp_u=1` in the body) the head defines `wait` for that command
 * and the tail removes it (JOBS_LISTING): `wait %N` then returns the kept status when bash no longer knows `%N`
 * (`jobs %N` fails), and anything else reaches the builtin unchanged. Narrow on purpose: a stop signal landing in a
 * function cannot leave the command's list (command-script header), and such a `wait` never blocks. Not installed
 * over a user's own `wait` function or alias. The logic is `__climcp_wt`, parsed at setup without user aliases; the
 * head evals only `wait() { __climcp_wt "$@"; }`, after the shape check.
 */
const KEPT_WAIT =
  '__climcp_wt() { if [[ $# -eq 1 && $1 == %[0-9]* && -n ${__climcp_K[$1]-} ]] && ! builtin jobs "$1" >/dev/null 2>&1; ' +
  `then [[ \${__climcp_K[$1]} == ${TAKEN} ]] || builtin return "\${__climcp_K[$1]}"; ` +
  `builtin printf '%s\\n' "${TAKEN_NOTICE}" >&2; builtin return 127; fi; builtin wait "$@"; }`;
const INSTALL_KEPT_WAIT =
  'if [[ -n ${__climcp_u-} ]]; then if [[ -z ${BASH_ALIASES[wait]+x} ]] && ! builtin declare -F wait; then ' +
  'builtin eval \'wait() { __climcp_wt "$@"; }\'; else __climcp_u=; fi; fi; ';

/** Printed on the command's stderr when the body file did not hold this command (see `__climcp_b`). */
export const LOST_BODY_NOTICE = '[cli-mcp: the command did not reach the shell (its body file was changed); nothing ran]';
const LOST_BODY = `builtin printf '%s\\n' ${singleQuote(LOST_BODY_NOTICE)} >&2; builtin false`;

/**
 * Run once after the shell starts. Head and tail run with stdout/stderr on /dev/null (by the group around the whole
 * command text, so even their own calls' trace goes there): a user's DEBUG/RETURN trap or xtrace prints nowhere;
 * only the markers go to the saved copies.
 */
export const SHELL_SETUP = [
  // In POSIX mode (entered by assignment, left only if it was ours) `eval` and `exec` are found before functions a
  // hostile environment could import (BASH_FUNC_exec%%). Close every descriptor the shell inherited beyond 0-2
  // (e.g. the agent's SANDBOX_READY_FD, whose EOF tells the local backend the agent is gone): user commands must
  // not hold them or see them. Then the saved copies, and the reset drops an imported function `builtin`.
  'case :$SHELLOPTS: in *:posix:*) __climcp_q=;; *) __climcp_q=1; POSIXLY_CORRECT=y;; esac',
  'for __climcp_fd in /proc/$$/fd/*; do __climcp_fd=${__climcp_fd##*/}; case $__climcp_fd in 0|1|2) ;; ' +
    '*) eval "exec $__climcp_fd>&-" 2>/dev/null;; esac; done; unset __climcp_fd',
  'exec {__climcp_o}>&1 {__climcp_e}>&2',
  `[[ -n $__climcp_q ]] && unset POSIXLY_CORRECT; { ${reset('0')}; } 2>/dev/null; __climcp_q=`,
  // The user's shell has aliases on (as before C-AG-12); the chunk lines themselves are parsed with them off.
  // Job control (C-MCP-11): every pipeline runs as a job in its own process group, so a command still running at
  // the yield point can be stopped and continued in the background as `%N`.
  'set -m; __climcp_a=1; __climcp_x=',
  // C-MCP-15: the kept statuses of jobs bash forgot (`__climcp_K[%N]=PID`) and the `wait` that answers them.
  `builtin declare -A __climcp_K; ${KEPT_WAIT}`,
  `__climcp_p=$'\\x1f__CLIMCP_'; __climcp_T=${singleQuote(STOP_TRAP)}; __climcp_N=${singleQuote(BUILTIN_REMOVED_NOTICE)}`,
  // The fixed text every command line evals (see "One read" above), and the body used when the body file was not
  // the one this line was written for (it was removed or replaced meanwhile): the command fails, nothing hangs.
  `__climcp_P=${singleQuote(COMMAND_TEXT)}; __climcp_L=${singleQuote(LOST_BODY)}`,
  // Head `__climcp_b` (the nonce is in `$__climcp_g`): re-install the stop trap (see the header), read the body file
  // (`__climcp_c`, the mode `__climcp_m`, the words `__climcp_W`, the nonce it was written for `__climcp_G`), turn the
  // user's aliases back on for the eval (not for the agent's internal scripts, MODE I), print the start markers
  // followed by the mode the command runs in (C-MCP-11, command-shape.ts, RUN_MODE): J (its last statement is a job
  // to detach), P (parenthesised: the eval'd text becomes `( command\n)`, one job), W (a lone wait) or S (in the
  // shell). J/P/W fall back to S when
  // a WORD is an alias or a function (it would not mean what the agent read), under `set -e` (stopping a job would
  // end the shell) and without job control (`set +m`); COMMAND_TEXT adds an ERR trap (ERR_TRAP_CHECK).
  '__climcp_b() { __climcp_s=; builtin trap "$__climcp_T" USR1; __climcp_G=; ' +
    '{ builtin . "$__climcp_F" && [[ $__climcp_G == "$__climcp_g" ]]; } || { __climcp_c=$__climcp_L; __climcp_m=S; }; ' +
    '[[ -n ${__climcp_a-} && $__climcp_m != I ]] && builtin shopt -s expand_aliases; ' +
    'case $__climcp_m in [JPW]) case $- in *e*) __climcp_m=S;; *m*) ;; *) __climcp_m=S;; esac; ' +
    'for __climcp_i in "${__climcp_W[@]}"; do if [[ -n ${BASH_ALIASES[$__climcp_i]+x} ]] || builtin declare -F -- "$__climcp_i"; then __climcp_m=S; builtin break; fi; done;; ' +
    `I) __climcp_m=S;; esac; ${INSTALL_KEPT_WAIT}}`,
  // `__climcp_h`, after ERR_TRAP_CHECK: a P command's eval'd text becomes `( command\n)`; the start markers.
  '__climcp_h() { [[ $__climcp_m == P ]] && __climcp_c="( $__climcp_c"$\'\\n\'")"; ' +
    'builtin printf \'%s%sS%s\' "$__climcp_p" "$__climcp_g" "$__climcp_m" >&"$__climcp_o"; ' +
    'builtin printf \'%s%sS%s\' "$__climcp_p" "$__climcp_g" "$__climcp_m" >&"$__climcp_e"; }',
  // `__climcp_y OUT ERR MARKER` (C-MCP-11): the stopped job keeps the shell's current output streams; the shell moves
  // to the FIFOs OUT/ERR (in POSIX mode, so `exec` is the builtin), continues the job in the background and says so
  // with MARKER on the new stdout.
  '__climcp_y() { case :$SHELLOPTS: in *:posix:*) __climcp_q=;; *) __climcp_q=1; __climcp_O=$BASHOPTS; POSIXLY_CORRECT=y;; esac; ' +
    'exec {__climcp_o}>&- {__climcp_e}>&-; exec >"$1" 2>"$2" {__climcp_o}>&1 {__climcp_e}>&2; ' +
    `if [[ -n $__climcp_q ]]; then unset POSIXLY_CORRECT; ${RESTORE_OPTIONS}; fi; __climcp_q=; ` +
    'builtin bg %+ >/dev/null 2>&1; builtin printf \'%s%s\' "$__climcp_p" "$3" >&"$__climcp_o"; }',
  // Tail `__climcp_f STATUS`: reset (above); a user's -x/-v go off here and back on, by `$__climcp_x`, inside
  // the next eval; notice; end markers.
  // (The prefix is a line of its own, so `set -v` echoes the user's command as bash reads it, as in a terminal.)
  `__climcp_f() { case $- in *[xv]*) __climcp_x="\\builtin set -\${-//[^xv]/}"$'\\n';; *) __climcp_x=;; esac; ${reset('"$1"')}; ` +
    '[[ -n $__climcp_x ]] && builtin set +xv; ' + JOBS_LISTING +
    'if [[ -n ${__climcp_n-} ]]; then __climcp_n=; builtin printf \'%s\\n\' "$__climcp_N" >&"$__climcp_e"; fi; ' +
    'builtin printf \'%s%sE%d\\n\' "$__climcp_p" "$__climcp_g" "$1" >&"$__climcp_o"; ' +
    'builtin printf \'%s%sE\' "$__climcp_p" "$__climcp_g" >&"$__climcp_e"; }',
  '',
].join('\n');

/** `'…'` literal for any text without NUL: every `'` becomes `'\''`. */
export function singleQuote(text: string): string {
  return `'${text.replaceAll("'", `'\\''`)}'`;
}

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
    randomFillSync(nonceBytes);
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
  /** The tail lists the shell's jobs (C-MCP-15, JOBS_LISTING): the agent tracks jobs that may have ended. */
  listJobs?: boolean;
  /** Jobs bash forgot, by spec, with their kept status (C-MCP-15, KEPT_WAIT). */
  keptJobs?: ReadonlyArray<readonly [string, KeptStatus]>;
  /** Define the kept-status `wait` for this command (KEPT_WAIT). */
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
  return (kept ?? []).map(([spec, pid]) => `__climcp_K[${singleQuote(spec)}]=${pid}; `).join('');
}

/** The line that sets the shell's body file and its job file (JOBS_LISTING), after SHELL_SETUP. */
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
