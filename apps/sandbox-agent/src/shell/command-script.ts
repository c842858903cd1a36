/**
 * The text the agent writes to the persistent bash (C-AG-5, C-AG-6). Design, verified with bash 5.2:
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
 *   the script (nothing echoed by `set -v` or `set -x` can match), and they are found by a byte search, not per line,
 *   so output without a trailing newline works (Go §18 item 10).
 * - `set -x` chosen by the user is switched off around the protocol lines and back on inside the next eval, so the
 *   trace of the protocol itself never pollutes the command's stderr.
 * - Every protocol command is `\`-quoted (no alias expansion) and `builtin`-prefixed (no user function override).
 * - Stopping a command must also stop the REST of its command list (`sleep 30; rm -rf x` must not reach `rm` after a
 *   cancel): the eval runs inside a one-iteration `for` loop, and a `USR1` trap does `break 1000000`. The agent
 *   sends SIGUSR1 to the shell before killing the command's processes; bash runs the trap as soon as the foreground
 *   child dies (or between two builtins of a busy builtin loop), which leaves every loop, ours included, so the
 *   rest of the list is skipped while cwd/env are kept. The trap is re-installed with every command in case a user
 *   command replaced it; inside a shell function only that function's loops are left (then the kill sweep and,
 *   as a last resort, replacing the shell apply). It costs nothing while nothing is cancelled.
 * - Everything is ONE input line, parsed in full before eval runs: bash 5.2 leaves its parser confused after `eval`
 *   of a string ending in a backslash (a next input line starting with `{` is a syntax error, which ends a
 *   non-interactive shell), so nothing of the protocol may follow the eval on a later line.
 */

/** First bytes of every marker; \x1f (unit separator) makes an accidental partial match in real output rare. */
export const MARKER_PREFIX = '\x1f__CLIMCP_';

const STOP_TRAP = "\\builtin trap '\\builtin break 1000000 2>/dev/null' USR1";

/** Run once after the shell starts. */
export const SHELL_SETUP = [
  // Close every descriptor the shell inherited beyond 0-2 (e.g. the agent's SANDBOX_READY_FD, whose EOF tells the
  // local backend the agent is gone): user commands must not hold them or see them.
  'for __climcp_fd in /proc/$$/fd/*; do __climcp_fd=${__climcp_fd##*/}; case $__climcp_fd in 0|1|2) ;; ' +
    '*) eval "exec $__climcp_fd>&-" 2>/dev/null;; esac; done; unset __climcp_fd',
  'shopt -s expand_aliases',
  'exec {__climcp_o}>&1 {__climcp_e}>&2',
  '__climcp_x=',
  `__climcp_p=$'\\x1f__CLIMCP_'`,
  // The start-marker function also re-installs the stop trap (see the header), so the per-command chunk stays short:
  // bash reads it from a pipe one byte at a time.
  `__climcp_b() { ${STOP_TRAP}; \\builtin printf '%s%s' "$__climcp_p" "$1" >&$__climcp_o; ` +
    '\\builtin printf \'%s%s\' "$__climcp_p" "$1" >&$__climcp_e; }',
  '__climcp_f() { __climcp_x=${-//[^x]/}; \\builtin set +x; ' +
    '\\builtin printf \'%s%s%d\\n\' "$__climcp_p" "$2" "$1" >&$__climcp_o; ' +
    '\\builtin printf \'%s%s\' "$__climcp_p" "$2" >&$__climcp_e; }',
  '',
].join('\n');

/** `'…'` literal for any text without NUL: every `'` becomes `'\''`. */
export function singleQuote(text: string): string {
  return `'${text.replaceAll("'", `'\\''`)}'`;
}

export function startMarker(nonce: string): Buffer {
  return Buffer.from(`${MARKER_PREFIX}${nonce}S`, 'latin1');
}

/** On stdout the end marker is followed by the decimal exit code and `\n`; on stderr it stands alone. */
export function endMarker(nonce: string): Buffer {
  return Buffer.from(`${MARKER_PREFIX}${nonce}E`, 'latin1');
}

/** One chunk per command; `nonce` is fresh random hex. The command must not contain NUL (checked by the caller). */
export function buildCommandChunk(command: string, nonce: string): string {
  return (
    `__climcp_c=${singleQuote(command)}; \\__climcp_b ${nonce}S; ` +
    `for __climcp_l in 1; do { \\builtin eval "\${__climcp_x:+\\builtin set -x; }$__climcp_c"; } </dev/null 1>&$__climcp_o 2>&$__climcp_e {__climcp_o}>&- {__climcp_e}>&-; done; ` +
    `{ \\__climcp_f "$?" ${nonce}E; } 2>/dev/null\n`
  );
}

/** Signal the agent sends to the shell to abandon the rest of the running command list (see above). */
export const STOP_LIST_SIGNAL = 'SIGUSR1';

