import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAgent, stopAllAgents, type TestAgent } from './agent-harness.js';

// Go bash_test.go inventory, re-expressed over HTTP against the built agent with a real bash (C-AG-5).
describe('sandbox-agent: command basics', () => {
  let agent: TestAgent;
  beforeAll(async () => {
    agent = await startAgent();
  });
  afterAll(stopAllAgents);

  it('runs a simple echo with trailing newline trimmed', async () => {
    const r = await agent.exec('echo hello');
    expect(r).toMatchObject({ stdout: 'hello', stderr: '', exit_code: 0, timed_out: false, cancelled: false,
      truncated: false, state_reset: false, stdout_bytes: 6, stderr_bytes: 0 });
    expect(r.duration_ms).toBeGreaterThanOrEqual(0);
  });

  it('returns multi-line output', async () => {
    expect((await agent.exec("printf 'line1\\nline2\\nline3\\n'")).stdout).toBe('line1\nline2\nline3');
  });

  it.each([
    ['true', 0],
    ['false', 1],
    ['(exit 42)', 42],
    ['nonexistent_command_xyz; false', 1],
    ['nonexistent_command_xyz', 127],
  ])('exit code of %s is %i', async (command, code) => {
    expect((await agent.exec(command)).exit_code).toBe(code);
  });

  it('keeps env, cwd, functions and aliases between commands', async () => {
    await agent.exec('export FOO_VAR=bar; mkdir -p sub/dir && cd sub/dir; greet() { echo "hi $1"; }; alias ll="echo aliased"');
    const r = await agent.exec('echo $FOO_VAR; pwd; greet you; ll');
    expect(r.stdout).toBe(`bar\n${agent.workdir}/sub/dir\nhi you\naliased`);
    await agent.exec(`cd ${agent.workdir}`);
  });

  it('captures stderr apart from stdout', async () => {
    const r = await agent.exec('echo out1; echo err1 >&2; echo out2; echo err2 >&2');
    expect(r.stdout).toBe('out1\nout2');
    expect(r.stderr).toBe('err1\nerr2');
  });

  it('runs pipes and redirects', async () => {
    expect((await agent.exec("echo 'a b c' | tr ' ' '\\n' | sort -r")).stdout).toBe('c\nb\na');
    expect((await agent.exec('echo saved > f.txt; cat < f.txt; rm f.txt')).stdout).toBe('saved');
  });

  it('an effectively empty command exits 0', async () => {
    expect(await agent.exec(' ')).toMatchObject({ stdout: '', stderr: '', exit_code: 0 });
    expect((await agent.exec('# only a comment')).exit_code).toBe(0);
  });

  it('returns delimiter-like text verbatim', async () => {
    const text = '__SANDBOX_fake__ __CLIMCP_0123456789abcdef01234567E0 __CLIMCP_S';
    expect((await agent.exec(`printf '%s' '${text}'; printf '\\x1f__CLIMCP_S\\x1f__CLIMCP_E0\\n'`)).stdout)
      .toBe(`${text}\x1f__CLIMCP_S\x1f__CLIMCP_E0`);
  });

  it('gives commands /dev/null as stdin (cat and read do not hang)', async () => {
    const r = await agent.exec('cat; read -t 5 line; echo "read=$? line=[$line]"; echo done', { timeout: 20 });
    expect(r).toMatchObject({ stdout: 'read=1 line=[]\ndone', exit_code: 0, timed_out: false });
    expect((await agent.exec('echo alive')).stdout).toBe('alive');
  });

  it('returns output without a trailing newline on both streams (Go §18 item 10)', async () => {
    const r = await agent.exec('printf abc; echo -n x >&2');
    expect(r).toMatchObject({ stdout: 'abc', stderr: 'x', exit_code: 0, timed_out: false });
  });

  it('keeps binary output counts exact and flags NUL bytes', async () => {
    const r = await agent.exec('head -c 1000 /dev/urandom; printf "\\0"');
    expect(r.stdout_bytes).toBe(1001);
    expect(r.stdout_binary).toBe(true);
    expect((await agent.exec('echo next')).stdout).toBe('next');
  });

  it('decodes invalid UTF-8 lossily and keeps valid multi-byte text', async () => {
    const r = await agent.exec("printf 'ok \\xff\\xfe é —\\n'");
    expect(r.stdout).toBe('ok \ufffd\ufffd é —');
    expect(r.stdout_bytes).toBe(13);
    expect(r.stdout_binary).toBeUndefined();
  });

  it('runs commands containing quotes of every kind', async () => {
    const r = await agent.exec(`echo "it's" 'say "hi"' $'tab\\there' \`echo back\` $(echo sub)`);
    expect(r.stdout).toBe(`it's say "hi" tab\there back sub`);
  });

  it('does not leak the protocol into stderr when the user turns on xtrace', async () => {
    const r = await agent.exec('set -x; echo traced');
    expect(r.stdout).toBe('traced');
    // Three `+`: the user's eval runs inside the eval of the protocol's fixed command text (docs/agent.md, issue 11).
    expect(r.stderr).toBe('+++ echo traced');
    const next = await agent.exec('echo again; set +x');
    expect(next.stderr).toBe('+++ echo again\n+++ set +x');
    expect((await agent.exec('echo quiet')).stderr).toBe('');
  });

  it('commands inherit no descriptor beyond stdin/stdout/stderr (not the agent\'s ready fd)', async () => {
    const r = await agent.exec('ls /proc/self/fd | sort -n | tr "\\n" " "');
    // 0-2, plus the descriptor `ls` itself opens to read the directory.
    expect(r.stdout.trim().split(' ').map(Number).filter((fd) => fd > 3)).toEqual([]);
  });

  it('runs 5 sequential commands', async () => {
    for (let i = 0; i < 5; i++) expect((await agent.exec(`echo ok${i}`)).stdout).toBe(`ok${i}`);
  });

  it('runs a large multi-line command (heredoc writing a file)', async () => {
    const body = Array.from({ length: 2000 }, (_, i) => `row ${i} with 'quotes' and $dollars`).join('\n');
    const r = await agent.exec(`cat > big.txt <<'EOF'\n${body}\nEOF\nwc -l < big.txt; rm big.txt`);
    expect(r.stdout).toBe('2000');
  });
});
