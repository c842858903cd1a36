/**
 * A grammar of bash commands for the shape classifier's oracle (shape-oracle.test.ts, C-MCP-11): programs, pure
 * builtins, builtins and expansions that change shell state, pipelines, lists, loops, conditionals, functions,
 * redirections. Weighted toward what the classifier lets out of the shell (programs and pure builtins), so that many
 * samples are classified `job` or `subshell` and reach the checks; the state changers are there to be caught.
 *
 * Every program is fast and reads nothing from its stdin but /dev/null. `oracle_gate LABEL` (bash-oracle.ts) is the
 * one program that can stop its own job: it prints LABEL after it was continued, so output order shows whether bash
 * went on with the rest of a list while the job was stopped.
 */
import fc from 'fast-check';

const label = fc.integer({ min: 1, max: 9 }).map((n) => `p${n}`);
const name = fc.constantFrom('x', 'y', 'n');

/** Words an argument may be; some expand, some of those assign (`${x:=…}`, `$((x=…))`, `$[…]`, `${a[i=…]}`). */
const argument = fc.oneof(
  { weight: 8, arbitrary: label },
  { weight: 1, arbitrary: fc.constantFrom('"a b"', "'c;d'", '$x', '"${y:-d}"', '${#x}', '$(echo s)', '`echo b`', '"$(cd /)"', '$(x=9)') },
  { weight: 1, arbitrary: fc.constantFrom('${x:=1}', '${y=2}', '$((n=2))', '$((n++))', '$[n=3]', '${a[n=5]}', '$((n+1))') },
);

const programs = fc.oneof(
  { weight: 4, arbitrary: label.map((l) => `oracle_gate ${l}`) },
  { weight: 2, arbitrary: argument.map((a) => `/bin/echo ${a}`) },
  { weight: 1, arbitrary: fc.constantFrom('sleep 0', 'env true', 'env false', 'seq 2', 'cat /dev/null', 'tr a b </dev/null') },
);

const pureBuiltins = fc.oneof(
  { weight: 3, arbitrary: argument.map((a) => `echo ${a}`) },
  { weight: 1, arbitrary: label.map((l) => `printf '%s\\n' ${l}`) },
  { weight: 1, arbitrary: fc.constantFrom('true', 'false', ':', 'test -n x', '[ 1 = 1 ]', 'pwd >/dev/null', 'type cd >/dev/null', 'times >/dev/null') },
  { weight: 1, arbitrary: fc.constantFrom('[[ -n x ]]', '[[ n++ -eq 0 ]]', '[[ ab =~ (a) ]]', '[[ x -eq 0 ]]', '[[ -v x ]]') },
);

/** Builtins and words that change what a later command sees (or might: the oracle decides). */
const stateChangers = fc.oneof(
  fc.tuple(name, label).map(([n, l]) => `${n}=${l}`),
  fc.tuple(name, label).map(([n, l]) => `export ${n}=${l}`),
  fc.tuple(name, label).map(([n, l]) => `${n}=${l} :`),
  fc.tuple(name, label).map(([n, l]) => `${n}=${l} env true`),
  fc.constantFrom(
    'cd /', 'cd "$ORACLE_HOME"', 'pushd / >/dev/null', 'popd >/dev/null 2>&1', 'builtin cd /', 'command cd /',
    'y+=a', 'a[1]=z', 'unset x', 'unset -f f', 'declare -i n=3', 'typeset t=1', 'readonly r=1', 'local v=1',
    'set -e', 'set +e', 'set -u', 'set +m', 'set -f', 'set -o posix', 'set -- a b', 'shift',
    'shopt -s nullglob', 'shopt -s lastpipe', 'shopt -u expand_aliases', 'alias ll=ls', 'unalias -a', 'umask 077',
    "trap 'echo T' EXIT", 'trap : USR2', "trap 'echo E' ERR", 'trap - INT', 'hash -r', 'read v', 'mapfile -t m',
    'printf -v pv %s q', 'let n=1', 'eval x=3', 'source /dev/null', '. /dev/null', 'exec 3>/dev/null',
    'enable -n echo', 'getopts a o', 'f', 'g', 'break', 'continue', 'return', 'x=1 f', 'ulimit -c 0',
  ),
);

const redirection = fc.constantFrom('', '', '', ' >/dev/null', ' 2>&1', ' <<<q', ' >>"$ORACLE_DIR/f"', ' 2>/dev/null');

const simple = fc
  .tuple(fc.oneof({ weight: 5, arbitrary: programs }, { weight: 4, arbitrary: pureBuiltins }, { weight: 2, arbitrary: stateChangers }), redirection)
  .map(([command, redirect]) => `${command}${redirect}`);

const separator = fc.constantFrom('; ', '; ', ' && ', ' || ', '\n');

/** Commands up to `depth` levels of nesting. */
function command(depth: number): fc.Arbitrary<string> {
  const pipeline = fc
    .tuple(fc.boolean(), fc.array(depth > 0 ? fc.oneof({ weight: 4, arbitrary: simple }, { weight: 1, arbitrary: compound(depth - 1) }) : simple, { minLength: 1, maxLength: 3 }))
    .map(([negate, parts]) => `${negate && parts.length > 1 ? '! ' : ''}${parts.join(' | ')}`);
  return fc
    .tuple(fc.array(fc.tuple(pipeline, separator), { maxLength: 3 }), pipeline, fc.constantFrom('', '', '', '', ' &', ';'))
    .map(([head, last, end]) => `${head.map(([p, s]) => p + s).join('')}${last}${end}`);
}

function compound(depth: number): fc.Arbitrary<string> {
  const body = command(depth);
  return fc.oneof(
    body.map((b) => `{ ${b}\n}`),
    body.map((b) => `( ${b}\n)`),
    fc.tuple(body, body).map(([c, b]) => `if ${c}\nthen ${b}\nfi`),
    fc.tuple(body, body, body).map(([c, b, e]) => `if ${c}\nthen ${b}\nelse ${e}\nfi`),
    body.map((b) => `for i in 1 2; do ${b}\ndone`),
    body.map((b) => `while false; do ${b}\ndone`),
    // A condition that may never hold leaves at once: the loops end whatever the body's status.
    body.map((b) => `until ${b}\ndo break; done`),
    body.map((b) => `while ${b}\ndo break; done`),
    fc.tuple(body, redirection).map(([b, r]) => `for j in q; do ${b}\ndone${r}`),
    body.map((b) => `f() { ${b}\n}`),
    body.map((b) => `function g { ${b}\n}`),
  );
}

/** A command typed into the session shell: a list of pipelines of simple and compound commands. */
export const shellCommand: fc.Arbitrary<string> = fc.oneof({ weight: 3, arbitrary: command(1) }, { weight: 1, arbitrary: compound(1) });

/** The state earlier commands left in the session (a function, an alias, options, traps). */
export const sessionState: fc.Arbitrary<string> = fc.constantFrom(
  '', '', '', 'x=0', 'f() { echo F; }', 'alias g=echo', 'set -o posix', 'set -u', 'set -e', 'set +m', 'shopt -s lastpipe',
  "trap 'echo E' ERR", 'declare -a a=(1 2)', 'cd "$ORACLE_HOME"',
);
