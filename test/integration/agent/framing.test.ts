import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
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

// Issue 11: the command body reaches bash through a per-shell file that bash sources (command-script.ts, "One read").
// Whatever a command does to that file, the next command runs as sent; the command's own stdin stays /dev/null.
describe('sandbox-agent: the command body file', () => {
  let agent: TestAgent;
  let tmp: string;
  beforeAll(async () => {
    // A TMPDIR of its own, so the commands below touch this agent's body file only (never another agent's).
    tmp = mkdtempSync(join(tmpdir(), 'agent-body-'));
    agent = await startAgent({ env: { TMPDIR: tmp } });
  });
  afterAll(async () => {
    await stopAllAgents();
    rmSync(tmp, { recursive: true, force: true });
  });

  it('lives in a private directory under the agent\'s TMPDIR', async () => {
    const r = await agent.exec('stat -c "%a %n" "$TMPDIR"/climcp-sh-* "$TMPDIR"/climcp-sh-*/*');
    expect(r.stdout).toMatch(/^700 .*climcp-sh-\w+\n600 .*climcp-sh-\w+\/\d+-\d+$/);
  });

  it('a command that writes another command into the file does not change the next command', async () => {
    await agent.exec(`for f in "$TMPDIR"/climcp-sh-*/*; do printf '%s\\n' "__climcp_c='echo HACKED'" > "$f"; done`);
    expect(await agent.exec('echo fine')).toMatchObject({ stdout: 'fine', stderr: '', exit_code: 0 });
  });

  // The agent truncates only a file longer than the new body (issue 11): what a command appended counts too.
  it('a command that appends a command to the file does not get it run with the next one', async () => {
    await agent.exec(`for f in "$TMPDIR"/climcp-sh-*/*; do printf '\\necho APPENDED\\n' >> "$f"; done`);
    expect(await agent.exec('echo fine')).toMatchObject({ stdout: 'fine', stderr: '', exit_code: 0 });
    expect(await agent.exec('echo a-longer-command-than-the-last-one')).toMatchObject({ stdout: 'a-longer-command-than-the-last-one', stderr: '' });
    expect(await agent.exec('echo s')).toMatchObject({ stdout: 's', stderr: '' });
  });

  it('a command that removes the file, or its directory, does not break the next command', async () => {
    await agent.exec('rm -f "$TMPDIR"/climcp-sh-*/*');
    expect(await agent.exec('echo after-file')).toMatchObject({ stdout: 'after-file', exit_code: 0, state_reset: false });
    await agent.exec('rm -rf "$TMPDIR"/climcp-sh-*');
    expect(await agent.exec('echo after-dir')).toMatchObject({ stdout: 'after-dir', exit_code: 0, state_reset: false });
  });

  it('a command reading its stdin gets EOF at once and does not eat the next command', async () => {
    const r = await agent.exec('cat; read -r line; echo "read=$? line=[$line]"; head -c 10');
    expect(r).toMatchObject({ stdout: 'read=1 line=[]', exit_code: 0, timed_out: false });
    expect((await agent.exec('echo next')).stdout).toBe('next');
  });

  it('a long command with every character from U+0001 to U+00FF, many times over, runs as sent', async () => {
    const bytes = Array.from({ length: 255 }, (_, i) => String.fromCharCode(i + 1)).join('');
    const text = bytes.repeat(1024);
    const r = await agent.exec(`cat <<'CLIMCP_EOF' | md5sum | cut -c1-32\n${text}\nCLIMCP_EOF`);
    const expected = createHash('md5').update(Buffer.from(`${text}\n`, 'utf8')).digest('hex');
    expect(r.stdout).toBe(expected);
  });
});
