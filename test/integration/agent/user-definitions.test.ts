import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAgent, stopAllAgents, type TestAgent } from './agent-harness.js';

// C-AG-12: functions, aliases and variables the user defines — named like anything the protocol uses — never break a
// command's framing, its timeout, or the next command.
const BUILTIN_REMOVED = "[cli-mcp: removed the shell function 'builtin'";

/** Builtins and keywords the protocol relies on (contract C-AG-12 list plus every word command-script.ts runs). */
const NAMES = [
  'builtin', 'command', 'eval', 'printf', 'trap', 'break', 'return', 'set', 'shopt', 'unset', 'declare', 'read',
  'exec', 'kill', 'wait', 'for', 'do', 'done', '{', '}', 'in', 'export', 'case', 'esac', 'if', 'then', 'fi', ':',
  '[', '[[', 'test', 'true', 'false', 'echo', 'source', '.', 'local', 'typeset', 'enable', 'type', 'alias',
  'unalias', 'shift', 'exit', 'continue',
];

describe('sandbox-agent: framing is immune to the user\'s own definitions (C-AG-12)', () => {
  let agent: TestAgent;
  beforeAll(async () => {
    agent = await startAgent();
  });
  afterAll(stopAllAgents);

  /** A quick command that uses none of NAMES except as arguments; the result must be exact. */
  async function expectFraming(): Promise<void> {
    const r = await agent.exec("/bin/sh -c 'printf \"fine\\n\"; printf \"err\\n\" >&2; exit 3'", { timeout: 10 });
    expect(r).toMatchObject({ stdout: 'fine', stderr: 'err', exit_code: 3, timed_out: false, state_reset: false });
  }

  describe.each(NAMES)('%s', (name) => {
    it('as a function', async () => {
      const defined = await agent.exec(`function ${name} { /bin/echo HIJACK; /bin/false; }`, { timeout: 10 });
      expect(defined).toMatchObject({ exit_code: 0, timed_out: false, state_reset: false });
      if (name === 'builtin') {
        // The one name the protocol cannot live with: removed, and the command says so.
        expect(defined.stderr).toContain(BUILTIN_REMOVED);
        expect((await agent.exec('type -t builtin')).stdout).toBe('builtin');
      } else {
        expect(defined.stderr).toBe('');
      }
      await expectFraming();
      await agent.exec(`\\builtin unset -f '${name}'`);
      await expectFraming();
    });

    it('as an alias', async () => {
      const defined = await agent.exec(`alias '${name}'='/bin/echo HIJACK;'`, { timeout: 10 });
      expect(defined).toMatchObject({ exit_code: 0, stderr: '', timed_out: false, state_reset: false });
      await expectFraming();
      await agent.exec(`\\unalias '${name}'`);
      await expectFraming();
    });
  });

  it('with every name hijacked at once (functions and aliases), timeouts still stop the rest of the list and keep the shell', async () => {
    const functions = NAMES.map((name) => `function ${name} { /bin/echo HIJACK; /bin/false; }`).join('\n');
    await agent.exec(`cd /tmp; export KEEP=kept\n${functions}`, { timeout: 10 });
    await agent.exec(NAMES.map((name) => `\\alias '${name}'='/bin/echo HIJACK;'`).join('\n'), { timeout: 10 });
    await expectFraming();

    const timedOut = await agent.exec('/bin/sleep 5; /bin/echo not-reached', { timeout: 0.5 });
    expect(timedOut).toMatchObject({ timed_out: true, exit_code: 137, state_reset: false });
    expect(timedOut.stdout).not.toContain('not-reached');
    // A builtin loop in the shell itself is broken out of by the stop trap: the shell survives.
    const loop = await agent.exec('while ((1)); do ((1)); done', { timeout: 0.5 });
    expect(loop).toMatchObject({ timed_out: true, state_reset: false });

    const state = await agent.exec('/bin/sh -c "pwd; printf %s \\"\\$KEEP\\""');
    expect(state).toMatchObject({ stdout: '/tmp\nkept', state_reset: false });
    const cleanup = NAMES.map((name) => `\\builtin unset -f '${name}'; \\builtin unalias '${name}'`).join('\n');
    await agent.exec(cleanup);
    expect((await agent.exec('echo back; cd ~')).stdout).toBe('back');
  });

  describe('hostile variables and options', () => {
    // Each case: its setup, its teardown, and whether a timed-out command keeps the shell (not under `set -e`, which
    // ends the shell on the killed command's status, as in a terminal: C-AG-8).
    it.each([
      ['IFS of digits', 'IFS=0123456789', 'unset IFS'],
      ['PS4 with a command substitution, set -x', 'PS4=\'+$(echo ps4) \'; set -x', 'set +x; unset PS4'],
      ['BASH_XTRACEFD=1 with set -x', 'BASH_XTRACEFD=1; set -x', 'set +x; unset BASH_XTRACEFD'],
      ['BASH_XTRACEFD=2 with set -x', 'BASH_XTRACEFD=2; set -x', 'set +x; unset BASH_XTRACEFD'],
      ['set -u', 'set -u', 'set +u'],
      ['set -e (protocol steps never fail)', 'set -e', 'set +e', false],
      ['an ERR trap', 'trap "echo ERR-TRAP >&2" ERR', 'trap - ERR'],
      ['a RETURN trap with functrace and extdebug', 'set -T; shopt -s extdebug; trap "echo RET-TRAP" RETURN', 'trap - RETURN; set +T; shopt -u extdebug'],
      ['POSIX mode of the user', 'POSIXLY_CORRECT=1', 'unset POSIXLY_CORRECT'],
      ['set -o posix', 'set -o posix', 'set +o posix'],
      ['FUNCNEST=1', 'FUNCNEST=1', 'unset FUNCNEST'],
    ])('%s', async (_name, setup, teardown, timeoutKeepsShell = true) => {
      await agent.exec(setup);
      const r = await agent.exec("/bin/sh -c 'printf \"fine\\n\"; printf \"err\\n\" >&2'");
      expect(r).toMatchObject({ exit_code: 0, timed_out: false, state_reset: false });
      expect(r.stdout.split('\n').at(-1)).toBe('fine');
      expect(r.stderr.split('\n').at(-1)).toBe('err');
      // Nothing of the protocol (its variables, functions, markers) leaks into the result, even traced.
      const all = `${r.stdout}${r.stderr}`;
      expect(all).not.toContain('__climcp');
      expect(all).not.toContain('\x1f');
      if (timeoutKeepsShell) {
        const timedOut = await agent.exec('/bin/sleep 5; /bin/echo not-reached', { timeout: 0.5 });
        expect(timedOut).toMatchObject({ timed_out: true, state_reset: false });
        expect(timedOut.stdout).not.toContain('not-reached');
      }
      await agent.exec(teardown);
      expect(await agent.exec('echo back')).toMatchObject({ stdout: 'back', stderr: '', state_reset: false });
    });

    it('keeps the user\'s POSIX mode and aliases in it', async () => {
      await agent.exec("set -o posix; alias hello='echo hi'");
      const r = await agent.exec('hello; case :$SHELLOPTS: in *:posix:*) echo posix-on;; esac');
      expect(r.stdout).toBe('hi\nposix-on');
      await agent.exec('set +o posix; unalias hello');
    });

    it('keeps the options POSIX mode would change as the user set them', async () => {
      await agent.exec('shopt -s shift_verbose inherit_errexit; shopt -u sourcepath');
      const on = await agent.exec('shopt -p shift_verbose inherit_errexit sourcepath interactive_comments');
      expect(on.stdout.split('\n')).toEqual([
        'shopt -s shift_verbose', 'shopt -s inherit_errexit', 'shopt -u sourcepath', 'shopt -s interactive_comments',
      ]);
      await agent.exec('shopt -u shift_verbose inherit_errexit; shopt -s sourcepath');
      const off = await agent.exec('shopt -p shift_verbose inherit_errexit sourcepath');
      expect(off.stdout.split('\n')).toEqual(['shopt -u shift_verbose', 'shopt -u inherit_errexit', 'shopt -s sourcepath']);
    });

    it('keeps the user\'s choice of alias expansion', async () => {
      await agent.exec("alias hello='echo hi'; shopt -u expand_aliases");
      expect((await agent.exec('hello 2>/dev/null || echo not-expanded')).stdout).toBe('not-expanded');
      await agent.exec('shopt -s expand_aliases');
      expect((await agent.exec('hello')).stdout).toBe('hi');
      await agent.exec('unalias hello');
    });

    it('set -v echoes the user\'s command, never the protocol line', async () => {
      await agent.exec('set -v');
      const r = await agent.exec('echo verbose');
      expect(r).toMatchObject({ stdout: 'verbose', stderr: 'echo verbose' });
      await agent.exec('set +v');
      expect(await agent.exec('echo quiet')).toMatchObject({ stdout: 'quiet', stderr: '' });
    });

    it('a user DEBUG trap runs for the user\'s commands and cannot break framing', async () => {
      await agent.exec("trap 'echo dbg >&2' DEBUG");
      const r = await agent.exec('echo traced-by-debug');
      expect(r).toMatchObject({ stdout: 'traced-by-debug', exit_code: 0, state_reset: false });
      await agent.exec('trap - DEBUG');
      expect(await agent.exec('echo back')).toMatchObject({ stdout: 'back', stderr: '' });
    });

    // Round 4 of issue 11 put head, eval loop and tail under one /dev/null group: a DEBUG trap that runs inside
    // functions too (set -T) and prints the command it traps must print nothing of the head or the tail. What it does
    // print of the protocol is one line per stream for the eval that runs the user's text (docs/agent.md, limits).
    it('a DEBUG trap with functrace that prints every command prints nothing of the head or tail', async () => {
      await agent.exec(`trap 'echo "dbg:$BASH_COMMAND"; echo "dbg:$BASH_COMMAND" >&2' DEBUG; set -T`);
      const r = await agent.exec('f() { echo in-f; }; f');
      expect(r).toMatchObject({ exit_code: 0, state_reset: false });
      expect(r.stdout.split('\n').at(-1)).toBe('in-f');
      for (const stream of [r.stdout, r.stderr]) {
        expect(stream).toContain('dbg:echo in-f');
        expect(stream).not.toContain('\x1f');
        expect(stream.split('\n').filter((line) => line.includes('__climcp'))).toEqual(['dbg:builtin eval "$__climcp_x$__climcp_c"']);
      }
      await agent.exec('trap - DEBUG; set +T');
      expect(await agent.exec('echo back')).toMatchObject({ stdout: 'back', stderr: '' });
    });

    it('a readonly function named builtin replaces the shell at once instead of hanging', async () => {
      const r = await agent.exec('function builtin { :; }; readonly -f builtin; echo defined', { timeout: 20 });
      expect(r).toMatchObject({ stdout: 'defined', timed_out: false });
      const next = await agent.exec('echo fresh');
      expect(next).toMatchObject({ stdout: 'fresh', state_reset: true });
    });
  });
});
