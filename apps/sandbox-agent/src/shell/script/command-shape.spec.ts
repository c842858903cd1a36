import { describe, expect, it } from 'vitest';
import { commandShape } from './command-shape.js';

const kind = (command: string): string => commandShape(command).kind;

describe(commandShape.name, () => {
  it.each([
    'sleep 60',
    'kubectl logs -f pod/x | grep -v DEBUG',
    '( sleep 5; echo done )',
    'cd /tmp && make -j4',
    'export A=1; B=2; ./run.sh --flag "a b" 2>&1',
    'while read l; do echo "$l"; done < f | sort',
    'A=1 sleep 10 >out.log',
    'python3 - <<EOF\nimport time\ntime.sleep(100)\nEOF',
    '! grep -q x file',
  ])('a job of its own at the end: %j', (command) => {
    expect(kind(command)).toBe('job');
  });

  it.each([
    'sleep 5; echo done',
    'while true; do date; sleep 1; done',
    'for i in 1 2 3; do kubectl get pods; sleep 10; done',
    'sleep 100 || echo failed',
    'if true; then sleep 100; fi',
    '{ sleep 2; ls; }',
    'sleep 1\nsleep 2',
    // A command substitution before the last statement runs a process of its own: not a state-only prefix.
    'echo "$(date)"; sleep 100',
  ])('a list or loop of programs and pure builtins, run as a subshell: %j', (command) => {
    expect(kind(command)).toBe('subshell');
  });

  it.each([
    ['a builtin', 'echo hi'],
    ['pure builtins only', 'echo a; echo b'],
    ['cd in a list', 'cd /tmp; sleep 100; echo done'],
    ['an assignment in a list', 'x=1; sleep 10; echo $x'],
    ['a background job', 'sleep 100 & echo started'],
    ['a function definition', 'f() { sleep 1; }; f'],
    ['function keyword', 'function f { :; }'],
    ['exec', 'exec sleep 100'],
    ['read', 'sleep 1; read x'],
    ['printf -v', 'sleep 1; printf -v x %s y'],
    ['arithmetic command', '((x++)); sleep 1'],
    ['arithmetic assignment', 'sleep 1; echo $((x=2))'],
    ['parameter assignment', 'sleep 1; echo ${x:=2}'],
    ['case', 'case $x in a) sleep 1;; esac'],
    ['source', 'source env.sh; sleep 1'],
    ['unterminated quote', 'echo "abc'],
    ['unterminated heredoc', 'cat <<EOF\nabc'],
    ['a lone }', '}'],
    ['exit in a list', 'sleep 1; exit 3'],
    ['wait in a list', 'sleep 1 & wait'],
    ['a comment in a substitution', 'echo $(ls # x\n); sleep 1'],
    // Counterexamples the oracle found (test/integration/agent/shape-oracle.test.ts) and their close relatives
    // (`shopt -o`, `{fd}>`): each lost state or a job.
    ['an assignment with a redirection (`2` is not the command)', 'sleep 1; x=1 2>&1'],
    ['`[[ … -eq … ]]` evaluates arithmetic', 'sleep 1; [[ n++ -eq 0 ]]'],
    ['old arithmetic expansion', 'sleep 1; echo $[n=3]'],
    ['`set -e` before the job (stopping it would end the shell)', 'set -e; sleep 100'],
    ['`shopt` before the job', 'shopt -so errexit; sleep 100'],
    ['an asynchronous list inside a subshell', '( sleep 100 & )'],
    ['a named file descriptor', 'sleep 1; echo hi {fd}>/dev/null'],
  ])('stays in the shell: %s', (_name, command) => {
    expect(kind(command)).toBe('shell');
  });

  it('a lone wait', () => {
    expect(commandShape('wait %1')).toEqual({ kind: 'wait', words: ['wait'] });
  });

  it('lists the words the shell must check for aliases and functions', () => {
    expect(commandShape('cd /tmp && make all | tee log')).toEqual({ kind: 'job', words: ['cd', 'make', 'tee'] });
    expect(commandShape('while true; do sleep 1; done')).toEqual({ kind: 'subshell', words: ['while', 'true', 'sleep'] });
  });

  it('skips quotes, substitutions, comments and here-document bodies when looking for separators', () => {
    expect(kind("echo 'a; b' \"c && $(echo d; echo e)\" `f;g` # ; sleep\n")).toBe('shell');
    expect(kind("grep ';' file | sed 's/a/b/' # trailing; comment")).toBe('job');
    expect(kind('cat <<-EOF | wc -l\n\ta; b\n\tEOF')).toBe('job');
    expect(kind("diff <(sort a) <(sort b)")).toBe('job');
    expect(kind('echo a \\\n  b; sleep 3')).toBe('job');
  });
});
