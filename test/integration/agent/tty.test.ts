import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAgent, stopAllAgents, type TestAgent } from './agent-harness.js';

// C-AG-11: opt-in pseudo-terminal per command; merged, normalised output; the pipe protocol stays the default.
describe('sandbox-agent: tty mode', () => {
  let agent: TestAgent;
  beforeAll(async () => {
    agent = await startAgent();
  });
  afterAll(stopAllAgents);

  it('runs programs that refuse to run without a terminal; the default mode has none', async () => {
    const command = "sh -c 'test -t 0 && test -t 1 && echo tty || exit 1' && tty";
    const r = await agent.exec(command, { tty: true });
    expect(r.exit_code).toBe(0);
    expect(r.stdout).toMatch(/^tty\n\/dev\/pts\/\d+$/);
    expect(await agent.exec(command)).toMatchObject({ stdout: '', exit_code: 1, state_reset: false });
  });

  it('merges stderr into stdout, normalises CR/LF and strips ANSI escapes', async () => {
    const r = await agent.exec("printf '\\033[31mred\\033[0m\\r\\n'; echo err >&2; printf 'a\\rb\\n'; printf '\\033]0;title\\007done'", { tty: true });
    expect(r).toMatchObject({ stdout: 'red\nerr\na\nb\ndone', stderr: '', exit_code: 0 });
  });

  it('inherits cwd, exported env, functions and aliases; its own changes do not persist', async () => {
    await agent.exec("mkdir -p ttydir && cd ttydir; export TTY_VAR=v1 MULTI=$'a\\nb=c'; f() { echo \"fn $1\"; }; alias al='echo alias-ok'");
    const r = await agent.exec(`pwd; echo $TTY_VAR; f x; al; [ "$MULTI" = $'a\\nb=c' ] && echo multi-ok; cd /; export TTY_VAR=changed`, { tty: true });
    expect(r.stdout).toBe(`${agent.workdir}/ttydir\nv1\nfn x\nalias-ok\nmulti-ok`);
    expect((await agent.exec('pwd; echo $TTY_VAR')).stdout).toBe(`${agent.workdir}/ttydir\nv1`);
  });

  it('gives reads end-of-file instead of hanging', async () => {
    const r = await agent.exec('cat; read x; echo "read=$?"; cat; echo done', { tty: true, timeout: 20 });
    expect(r).toMatchObject({ stdout: 'read=1\ndone', timed_out: false, exit_code: 0 });
  });

  it('reports exit codes and times out like the pipe mode, keeping partial output', async () => {
    expect((await agent.exec('exit 7', { tty: true })).exit_code).toBe(7);
    const started = Date.now();
    const r = await agent.exec('echo before; sleep 30', { tty: true, timeout: 1 });
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(r).toMatchObject({ stdout: 'before', stderr: 'command timed out', timed_out: true, exit_code: 137 });
    expect((await agent.exec('echo still-fine')).stdout).toBe('still-fine');
  });
});
