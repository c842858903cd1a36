/**
 * Issue 22 item 4 at the agent's own boundary (the attacks themselves run in test/integration/session/
 * agent-reach.test.ts, inside bubblewrap as an unprivileged user): the real agent makes itself non-dumpable
 * before its shell starts, says so in its start log and /health, and says so just as plainly when it cannot or
 * was told not to — it never runs dumpable in silence.
 */
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { AGENT_MAIN, startAgent, stopAllAgents } from './agent-harness.js';

// A root runner's commands hold CAP_SYS_PTRACE and read any /proc entry, so as root the agent runs as nobody.
const AS_NOBODY = process.getuid?.() === 0 ? { runAs: { uid: 65534, gid: 65534 } } : {};

describe('sandbox-agent: non-dumpable (issue 22 item 4)', () => {
  const dirs: string[] = [];
  afterAll(async () => {
    await stopAllAgents();
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  it('is non-dumpable by default and says so in its start log and /health', async () => {
    const agent = await startAgent();
    expect(await agent.waitForLog((l) => l.non_dumpable !== undefined)).toMatchObject({ level: 30, non_dumpable: true });
    expect((await agent.call('GET', '/health')).json).toMatchObject({ status: 'ok', nonDumpable: true });
  });

  it('refuses its own commands /proc/<agent>/environ and mem (an unprivileged agent user)', async () => {
    const agent = await startAgent(AS_NOBODY);
    const r = await agent.exec('cat /proc/$PPID/environ >/dev/null 2>&1; echo $?; cat /proc/$PPID/mem >/dev/null 2>&1; echo $?; cat /proc/$$/environ >/dev/null && echo shell-readable');
    // The shell is the user's own and stays dumpable (execve of a readable binary resets the flag).
    expect(r.stdout).toBe('1\n1\nshell-readable');
  });

  it('SANDBOX_DUMPABLE=1 keeps it dumpable, with a warning and nonDumpable: false', async () => {
    const agent = await startAgent({ env: { SANDBOX_DUMPABLE: '1' } });
    expect(await agent.waitForLog((l) => l.non_dumpable !== undefined)).toMatchObject({ level: 40, non_dumpable: false, reason: 'SANDBOX_DUMPABLE=1' });
    expect((await agent.call('GET', '/health')).json).toMatchObject({ status: 'ok', nonDumpable: false });
  });

  it('without its prctl addon it still serves, warns why and /health says nonDumpable: false', async () => {
    // The bundle alone, away from any node_modules: the addon (native/non-dumpable) is not found.
    const dir = mkdtempSync(join(tmpdir(), 'agent-no-addon-'));
    dirs.push(dir);
    for (const name of ['main.js', 'package.json']) copyFileSync(join(dirname(AGENT_MAIN), name), join(dir, name));
    const agent = await startAgent({ argv: [join(dir, 'main.js')] });
    const warning = await agent.waitForLog((l) => l.non_dumpable !== undefined);
    expect(warning).toMatchObject({ level: 40, non_dumpable: false, msg: expect.stringContaining('the agent is dumpable') });
    expect(warning.reason).toBe("prctl(2) is unavailable: Cannot find module '@cli-mcp/non-dumpable'");
    expect((await agent.call('GET', '/health')).json).toMatchObject({ status: 'ok', nonDumpable: false });
    expect((await agent.exec('echo still-works')).stdout).toBe('still-works');
  });
});
