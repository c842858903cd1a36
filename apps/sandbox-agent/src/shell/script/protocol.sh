# shellcheck shell=bash
# The bash side of the agent's protocol (C-AG-5, C-AG-6, C-AG-12, C-MCP-11, C-MCP-15): what the persistent shell
# runs once at start. The design is in command-script.ts; this file is its readable, linted source. protocol-source.ts
# assembles it into the text the agent sends (at bundle time the file is inlined as text; nothing reads it at run
# time):
#   - comments and blank lines go, indentation goes, and a line ending in `\` joins the next with one space (bash's
#     own line continuation, so the file parses as written);
#   - `__climcp_inline_NAME() { … }` defines a piece of text, not a function: its statements, joined with `; `, take
#     the place of every `__climcp_inline_NAME [ARG]` (ARG replacing `"$1"`), and the definition itself is dropped.
#     Pieces are inline on purpose: a user's FUNCNEST=1 allows our functions one level and no deeper;
#   - `@q:NAME@` becomes NAME (a piece, or a value the agent's TypeScript owns) as one single-quoted word, `@NAME@`
#     the value as it is;
#   - a function that is not a piece becomes one line, `name() { S1; S2; …; }`; every other line stays a line.
# Everything here runs with the shell's stdout and stderr on /dev/null except what goes to the saved copies
# `{__climcp_o}`/`{__climcp_e}` (the markers). Names starting with `__climcp_` are reserved; every protocol command is
# `builtin …` (functions shadow builtins); every expansion is quoted and tolerates `set -u`; no step returns non-zero
# outside a condition (`set -e`, ERR traps).
#
# Why lint exceptions: the variables are read by the text this file assembles, not by this file (SC2034, SC2154);
# `$__climcp_x$__climcp_c` and `$__climcp_T` are expanded on purpose where they stand (SC2016: single quotes hold
# text for a later eval); `exit "$1"` in a piece is the caller's status.
# shellcheck disable=SC2034,SC2154,SC2016,SC2317

# --- Pieces -------------------------------------------------------------------------------------------------------

# Options POSIX mode turns on when entered, and `expand_aliases`/`shift_verbose`, which leaving it turns off: put back
# as they were before (`$__climcp_O`, the saved BASHOPTS), and remember the user's `expand_aliases` in `__climcp_a`.
__climcp_inline_slow_restore() {
  case :$__climcp_O: in *:inherit_errexit:*) ;; *) builtin shopt -u inherit_errexit;; esac
  case :$__climcp_O: in *:shift_verbose:*) builtin shopt -s shift_verbose;; esac
  case :$__climcp_O: in *:sourcepath:*) ;; *) builtin shopt -u sourcepath;; esac
  case :$__climcp_O: in *:interactive_comments:*) ;; *) builtin shopt -u interactive_comments;; esac
  case :$__climcp_O: in *:expand_aliases:*) __climcp_a=1;; *) __climcp_a=;; esac
}

# The middle branch is the usual state, matched in one step (BASHOPTS lists options alphabetically; any other order
# only takes the slow, equally correct, branch).
__climcp_inline_restore_options() {
  case :$__climcp_O: in *:inherit_errexit:*|*:shift_verbose:*) __climcp_inline_slow_restore;; \
    *:expand_aliases:*:interactive_comments:*:sourcepath:*) builtin shopt -u inherit_errexit; __climcp_a=1;; \
    *) __climcp_inline_slow_restore;; esac
}

# Removes a user function named `builtin` while in POSIX mode (entered and left by assignment, so no command can be
# hijacked on the way). A readonly function of that name cannot be removed: the shell then exits with the command's
# status ("$1") and the next command runs in a fresh shell (C-AG-8).
__climcp_inline_remove_builtin() {
  if export -f builtin; then unset -f builtin || exit "$1"; __climcp_n=1; fi
}

# Makes `builtin` a builtin again and leaves `expand_aliases` off for the next chunk line, remembering in `__climcp_a`
# whether the user wants aliases. A user's own POSIX mode is kept.
__climcp_inline_reset() {
  case :$SHELLOPTS: in \
    *:posix:*) __climcp_inline_remove_builtin "$1"; \
      if builtin shopt -q expand_aliases; then __climcp_a=1; builtin shopt -u expand_aliases; else __climcp_a=; fi;; \
    *) __climcp_O=$BASHOPTS; POSIXLY_CORRECT=y; __climcp_inline_remove_builtin "$1"; unset POSIXLY_CORRECT; \
      __climcp_inline_restore_options;; \
    esac
}

# The USR1 trap (re-installed by every head): leave every loop, ours included, so the rest of a stopped command's
# list never runs; `__climcp_s` catches a signal landing between the head and the loop.
# shellcheck disable=SC2104 # this text runs as the trap, not in a function: its break leaves the user's loops
__climcp_inline_stop_trap() {
  __climcp_s=1; builtin break 1000000 2>/dev/null
}

# C-MCP-11, found by the shape oracle: stopping a job at the yield point gives the shell status 147, which runs the
# user's ERR trap. A detachable mode falls back to S when an ERR trap is set (bash 5.2 prints traps only to a stream:
# `$__climcp_F.t`). At top level of the command text, not in the head: a function does not see the ERR trap.
__climcp_inline_err_trap_check() {
  [[ $__climcp_m == S ]] || { builtin trap -p ERR >"$__climcp_F.t" && [[ ! -s $__climcp_F.t ]]; } || __climcp_m=S;
}

# What every command line evals ("One read"): head, the user's eval in the one-iteration loop, tail, as ONE group
# parsed in full before anything runs. The group puts stdout/stderr on /dev/null for all three; the user's eval gets
# the pipes back from its own group (closing the saved copies for its duration: commands inherit only fds 0-2).
# `__climcp_d` is the eval's status once it returned (set outside the user's group, so their -x, DEBUG trap or
# BASH_XTRACEFD never see it): the tail tells a text the stop trap cut short from one that ended on its own just
# before the signal (a lone `wait` whose job ended at the yield point: its status is real).
# shellcheck disable=SC2043 # the one-iteration loop is what the stop trap's break leaves
__climcp_inline_command_text() {
  { __climcp_b; __climcp_inline_err_trap_check __climcp_h; __climcp_d=; \
    for __climcp_l in 1; do [[ -z ${__climcp_s-} ]] || builtin break; \
    { builtin eval "$__climcp_x$__climcp_c"; } </dev/null >&"$__climcp_o" 2>&"$__climcp_e" {__climcp_o}>&- {__climcp_e}>&-; \
    __climcp_d=$?; done; \
    __climcp_f "${__climcp_d:-$?}" "$__climcp_d"; } >/dev/null 2>&1
}

# The body used when the body file was not the one a line was written for: the command fails, nothing hangs.
__climcp_inline_lost_body() {
  builtin printf '%s\n' @q:LOST_BODY_NOTICE@ >&2; builtin false
}

# C-MCP-15: the tail appends `jobs -l` to the job file (`$__climcp_R`) when the body asked (`__climcp_J=1`) or `$!`
# changed during the command; bash forgets a finished job once `jobs` showed it, so this listing is where its status
# is read. Then the kept-status `wait` goes, if the head defined it.
__climcp_inline_jobs_listing() {
  if [[ -n ${__climcp_J-} || ${!:-} != "${__climcp_k-}" ]]; then __climcp_J=; __climcp_k=${!:-}; \
    builtin jobs -l >>"$__climcp_R" || builtin true; fi
  if [[ -n ${__climcp_u-} ]]; then __climcp_u=; builtin unset -f wait; fi
}

# C-MCP-15: for a command whose every `wait` is `wait %N` of a job the shell keeps a status for (`__climcp_u=1` in
# the body), `wait` is `__climcp_wt` for that one command — unless the user has a `wait` function or alias.
__climcp_inline_install_kept_wait() {
  if [[ -n ${__climcp_u-} ]]; then if [[ -z ${BASH_ALIASES[wait]+x} ]] && ! builtin declare -F wait; then \
    builtin eval 'wait() { __climcp_wt "$@"; }'; else __climcp_u=; fi; fi
}

# --- Set-up, run once ---------------------------------------------------------------------------------------------

# In POSIX mode (entered by assignment, left only if it was ours) `eval` and `exec` are found before functions a
# hostile environment could import (BASH_FUNC_exec%%). Close every descriptor the shell inherited beyond 0-2 (e.g.
# the agent's SANDBOX_READY_FD, whose EOF tells the local backend the agent is gone; a sandbox's Node binary): user
# commands must not hold them or see them. Then the saved copies, and the reset drops an imported function `builtin`.
case :$SHELLOPTS: in *:posix:*) __climcp_q=;; *) __climcp_q=1; POSIXLY_CORRECT=y;; esac
# shellcheck disable=SC2231 # $$ is a number
for __climcp_fd in /proc/$$/fd/*; do __climcp_fd=${__climcp_fd##*/}; case $__climcp_fd in 0|1|2) ;; \
  *) eval "exec $__climcp_fd>&-" 2>/dev/null;; esac; done; unset __climcp_fd
exec {__climcp_o}>&1 {__climcp_e}>&2
[[ -n $__climcp_q ]] && unset POSIXLY_CORRECT; { __climcp_inline_reset 0; } 2>/dev/null; __climcp_q=
# The user's shell has aliases on (as before C-AG-12); the chunk lines themselves are parsed with them off. Job
# control (C-MCP-11): every pipeline runs as a job in its own process group, so a command still running at the yield
# point can be stopped and continued in the background as `%N`.
set -m; __climcp_a=1; __climcp_x=
# C-MCP-15: the kept statuses of jobs bash forgot (`__climcp_K[%N]=STATUS`, or @TAKEN@ when the user's own `wait`,
# `jobs` or `disown` took the job: bash keeps no status of a job started in the foreground) and the `wait` that
# answers them. It never blocks: a stop signal landing in a function could not leave the command's list.
builtin declare -A __climcp_K
__climcp_wt() {
  if [[ $# -eq 1 && $1 == %[0-9]* && -n ${__climcp_K[$1]-} ]] && ! builtin jobs "$1" >/dev/null 2>&1; \
    then [[ ${__climcp_K[$1]} == @TAKEN@ ]] || builtin return "${__climcp_K[$1]}"; \
    builtin printf '%s\n' "bash: wait: $1: no longer a job of this shell: an earlier command in this session took it (its wait or jobs showed the exit status; disown lets it run untracked)" >&2; \
    builtin return 127; fi
  builtin wait "$@"
}
__climcp_p=$'\x1f__CLIMCP_'; __climcp_T=@q:stop_trap@; __climcp_N=@q:BUILTIN_REMOVED_NOTICE@
__climcp_P=@q:command_text@; __climcp_L=@q:lost_body@

# Head (the nonce is in `$__climcp_g`): re-install the stop trap, read the body file (`__climcp_c`, the mode
# `__climcp_m`, the words `__climcp_W`, the nonce it was written for `__climcp_G`), turn the user's aliases back on for
# the eval (not for the agent's internal scripts, mode I). J/P/W (command-shape.ts, RUN_MODE) fall back to S when a
# WORD is an alias or a function (it would not mean what the agent read), under `set -e` (stopping a job would end
# the shell) and without job control (`set +m`); the command text adds the ERR trap check.
# shellcheck disable=SC2064 # the trap's text is the variable's content, expanded now on purpose
__climcp_b() {
  __climcp_s=; builtin trap "$__climcp_T" USR1; __climcp_G=
  { builtin . "$__climcp_F" && [[ $__climcp_G == "$__climcp_g" ]]; } || { __climcp_c=$__climcp_L; __climcp_m=S; }
  [[ -n ${__climcp_a-} && $__climcp_m != I ]] && builtin shopt -s expand_aliases
  case $__climcp_m in [JPW]) case $- in *e*) __climcp_m=S;; *m*) ;; *) __climcp_m=S;; esac; \
    for __climcp_i in "${__climcp_W[@]}"; do if [[ -n ${BASH_ALIASES[$__climcp_i]+x} ]] || builtin declare -F -- "$__climcp_i"; \
      then __climcp_m=S; builtin break; fi; done;; \
    I) __climcp_m=S;; esac
  __climcp_inline_install_kept_wait
}

# After the ERR trap check: a P command's eval'd text becomes `( command\n)`; the start markers, then the mode.
__climcp_h() {
  [[ $__climcp_m == P ]] && __climcp_c="( $__climcp_c"$'\n'")"
  builtin printf '%s%sS%s' "$__climcp_p" "$__climcp_g" "$__climcp_m" >&"$__climcp_o"
  builtin printf '%s%sS%s' "$__climcp_p" "$__climcp_g" "$__climcp_m" >&"$__climcp_e"
}

# `__climcp_y OUT ERR MARKER` (C-MCP-11): the stopped job keeps the shell's current output streams; the shell moves to
# the FIFOs OUT/ERR (in POSIX mode, so `exec` is the builtin), continues the job in the background and says so with
# MARKER on the new stdout.
__climcp_y() {
  case :$SHELLOPTS: in *:posix:*) __climcp_q=;; *) __climcp_q=1; __climcp_O=$BASHOPTS; POSIXLY_CORRECT=y;; esac
  exec {__climcp_o}>&- {__climcp_e}>&-; exec >"$1" 2>"$2" {__climcp_o}>&1 {__climcp_e}>&2
  if [[ -n $__climcp_q ]]; then unset POSIXLY_CORRECT; __climcp_inline_restore_options; fi; __climcp_q=
  builtin bg %+ >/dev/null 2>&1; builtin printf '%s%s' "$__climcp_p" "$3" >&"$__climcp_o"
}

# Tail `__climcp_f STATUS [RETURNED]`: the reset; a user's -x/-v go off here and back on, by `$__climcp_x`, inside the next eval
# (the prefix is a line of its own, so `set -v` echoes the user's command as bash reads it); the job listing; the
# notice of a removed `builtin`; the end markers (stdout's carries the status).
__climcp_f() {
  case $- in *[xv]*) __climcp_x="\builtin set -${-//[^xv]/}"$'\n';; *) __climcp_x=;; esac; __climcp_inline_reset "$1"
  [[ -n $__climcp_x ]] && builtin set +xv
  __climcp_inline_jobs_listing
  if [[ -n ${__climcp_n-} ]]; then __climcp_n=; builtin printf '%s\n' "$__climcp_N" >&"$__climcp_e"; fi
  # 256 + STATUS: the stop trap ran and cut the user's text short (pipe-command.ts reads it as `stopped`): the text
  # never returned, or it returned 138 = 128 + SIGUSR1 (Linux), a builtin `wait` the signal interrupted whose trap
  # bash ran only after the eval. A text that returned anything else ended on its own before the signal.
  if [[ -n ${__climcp_s-} && ( -z ${2-} || $2 == 138 ) ]]; then builtin set -- "$((256 + $1))"; fi
  builtin printf '%s%sE%d\n' "$__climcp_p" "$__climcp_g" "$1" >&"$__climcp_o"
  builtin printf '%s%sE' "$__climcp_p" "$__climcp_g" >&"$__climcp_e"
}
