import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAgent, stopAllAgents, type TestAgent } from './agent-harness.js';

// C-AG-6 / Go §18 item 11: hostile command text must never hang or break the protocol; the shell survives.
describe('sandbox-agent: framing survives hostile commands', () => {
  let agent: TestAgent;
  beforeAll(async () => {
    agent = await startAgent();
  });
  afterAll(stopAllAgents);

  async function expectShellStillWorks(): Promise<void> {
    await agent.exec('export KEEP=1');
    const r = await agent.exec('echo "works $KEEP"');
    expect(r).toMatchObject({ stdout: 'works 1', state_reset: false });
  }

  it.each([
    ['exec >&-', 'exec >&-; echo gone; echo still-err >&2', { stdout: '', stderr: expect.stringContaining('still-err') }],
    ['exec 2>&-', 'echo before >&2; exec 2>&-; echo out; echo lost >&2', { stdout: 'out', stderr: 'before' }],
    ['exec >file', 'exec >redir.txt; echo hidden', { stdout: '' }],
    ['unterminated quote', 'echo "abc', { exit_code: 2, stderr: expect.stringContaining('unexpected EOF') }],
    ['unterminated single quote', "echo 'abc", { exit_code: 2 }],
    ['unterminated heredoc', 'cat <<EOF\nabc', { stdout: 'abc', stderr: expect.stringContaining('here-document') }],
    ['lone }', '}', { exit_code: 2, stderr: expect.stringContaining('syntax error') }],
    ['trailing backslash', 'echo a\\', { stdout: 'a\\', exit_code: 0 }],
    ['eval of a trailing backslash', "eval 'echo b\\'", { stdout: 'b\\', exit_code: 0 }],
    ['unbalanced (', 'echo (', { exit_code: 2 }],
  ])('%s returns a result and the next command works', async (_name, command, expected) => {
    const r = await agent.exec(command, { timeout: 20 });
    expect(r).toMatchObject({ timed_out: false, state_reset: false, ...expected });
    await expectShellStillWorks();
  });

  it('exec >file really redirected only inside the command', async () => {
    expect((await agent.exec('cat redir.txt')).stdout).toBe('hidden');
  });

  it('stdin redirection inside a command does not eat the protocol', async () => {
    const r = await agent.exec('exec 0<redir.txt; read line; echo "got $line"');
    expect(r.stdout).toBe('got hidden');
    await expectShellStillWorks();
  });

  it('user functions named like builtins do not break the protocol', async () => {
    await agent.exec('printf() { echo hijacked; }; eval() { echo hijacked; }; alias builtin=false');
    expect((await agent.exec('echo fine')).stdout).toBe('fine');
    await agent.exec('unset -f printf eval; unalias builtin');
  });
});
