/**
 * Issue 22 item 4, attacked from inside a real bubblewrap sandbox with the real agent and bash: a command tries
 * to ptrace its own agent (`strace -p`, `gdb -p`) and to read its `/proc/<pid>/environ` (where the session token
 * is) and `/proc/<pid>/mem`. Each must fail. The same attacks against a dumpable process of the same user in the
 * same sandbox (a subshell the command started) must succeed: that proves the probes would see a success.
 */
import { spawnSync } from 'node:child_process';
import { deriveSessionToken } from '@cli-mcp/auth';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { agentProblem, bwrapProblem } from './support/environment.js';
import { describeWhenReady, toolProblem } from '../../support/prerequisites.js';
import { createSessionStack, HMAC_KEY, type SessionStack } from './support/session-stack.js';

const problem = agentProblem ?? bwrapProblem ?? toolProblem('strace', ['-V']);
const hasGdb = spawnSync('gdb', ['--version']).error === undefined;
if (!problem && !hasGdb) console.warn('[agent-reach] gdb is not installed: its attach is not tried');

/**
 * One line per probe against pid $1. strace is judged by what it says, never by a timer (a loaded machine may not
 * even start it within one): "Process N attached" = attached, anything else it ends with (exit 1, "Operation not
 * permitted") = refused; a successful attach waits for syscalls, so it is stopped once it has said so (at most
 * 20 s). The mem probe reads the first mapped page (maps is readable only when mem is) or, failing that, tries to
 * open mem at all.
 */
const PROBES = `probe() {
  t=$1
  if tr '\\0' '\\n' </proc/$t/environ 2>/dev/null | grep -q '^[A-Z]'; then echo environ=read; else echo environ=denied; fi
  tr '\\0' '\\n' </proc/$t/environ 2>/dev/null | grep -q '^SANDBOX_AUTH_TOKEN=' && echo token=read || echo token=hidden
  start=$(head -1 /proc/$t/maps 2>/dev/null | cut -d- -f1)
  if [ -n "$start" ]; then n=$(dd if=/proc/$t/mem bs=4096 skip=$((0x$start / 4096)) count=1 2>/dev/null | wc -c); else n=$(dd if=/proc/$t/mem bs=1 count=1 2>/dev/null | wc -c); fi
  echo mem=$n
  strace -e trace=none -p $t >/dev/null 2>strace.err & s=$!
  i=0; while [ $i -lt 200 ] && kill -0 $s 2>/dev/null && ! grep -q attached strace.err; do sleep 0.1; i=$((i+1)); done
  if grep -q attached strace.err; then echo strace=attached; else echo strace=refused; fi
  kill $s 2>/dev/null; wait $s 2>/dev/null; rm -f strace.err
  if command -v gdb >/dev/null; then gdb -nx -batch -ex 'info proc' -p $t 2>/dev/null | grep -q "^process $t" && echo gdb=attached || echo gdb=refused; fi
}`;

describeWhenReady('a sandbox command cannot reach into its agent (issue 22 item 4)', problem, () => {
  let stack: SessionStack;

  beforeAll(async () => {
    stack = await createSessionStack('bwrap', { network: 'none' });
  });
  afterAll(async () => {
    await stack?.close();
  });

  it('cannot trace the agent or read its environment or memory; a dumpable process of its own can be', async () => {
    const seen = await stack.run('s-reach', [
      PROBES,
      // The command's parent is the agent itself (the shell's parent).
      'agent=$(ps -o ppid= -p $$ | tr -d " ")',
      'tr "\\0" " " </proc/$agent/cmdline; echo',
      'echo "== agent"; probe $agent',
      // The shell stays dumpable: it is the user's own (execve of a readable binary resets the flag).
      'tr "\\0" "\\n" </proc/$$/environ | grep -q "^PATH=" && echo shell=readable',
      // A subshell: dumpable like the shell, and already itself once `$!` is known. A `sleep 30 &` could still be
      // inside its execve when probed, whose environ then reads empty ("environ=denied" on a loaded machine).
      '( while :; do sleep 1; done ) & control=$!',
      'echo "== control"; probe $control',
      'kill $control',
    ].join('\n'));
    const [cmdline, ...rest] = seen.response.stdout.split('\n');
    expect(cmdline).toMatch(/\/\.cli-mcp\/agent\/main\.js $/);
    const gdb = (result: string): string[] => (hasGdb ? [`gdb=${result}`] : []);
    expect(rest).toEqual([
      '== agent', 'environ=denied', 'token=hidden', 'mem=0', 'strace=refused', ...gdb('refused'), 'shell=readable',
      '== control', 'environ=read', 'token=hidden', 'mem=4096', 'strace=attached', ...gdb('attached'),
    ]);
  });

  it('finds the session token in no process\'s environment or arguments, bubblewrap\'s own init (pid 1) included (issue 20)', async () => {
    // Before the token travelled on a pipe (SANDBOX_AUTH_TOKEN_FD), pid 1 — bubblewrap's init — kept it in the
    // environment it was started with, readable by every command.
    const token = deriveSessionToken(HMAC_KEY, 's-token');
    const seen = await stack.run('s-token', [
      'for p in /proc/[0-9]*; do cat $p/environ $p/cmdline 2>/dev/null; done | tr "\\0" "\\n" > /tmp/all',
      'ps eww -e >> /tmp/all; env >> /tmp/all',
      'grep -c "^PATH=" /tmp/all; grep -c SANDBOX_AGENT_LISTEN_FD /tmp/all; cat /tmp/all',
    ].join('\n'));
    const [paths, pid1, ...all] = seen.response.stdout.split('\n');
    // The probe reads what it can: the shells' environments and bubblewrap's init's (its SANDBOX_* variables).
    expect(Number(paths)).toBeGreaterThanOrEqual(2);
    expect(Number(pid1)).toBeGreaterThanOrEqual(1);
    expect(all.join('\n')).not.toContain(token);
  });
});
