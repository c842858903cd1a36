import { STATE_RESET_NOTICE } from '@cli-mcp/agent-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isAlive, processRef, signalProcess } from '@cli-mcp/testing';
import { startAgent, stopAllAgents, waitFor, type TestAgent } from './agent-harness.js';

// C-AG-8: a dying shell is a normal result; the next command runs in a fresh shell with the exact notice.
describe('sandbox-agent: shell death and respawn', () => {
  let agent: TestAgent;
  beforeAll(async () => {
    agent = await startAgent();
  });
  afterAll(stopAllAgents);

  async function expectFreshShell(): Promise<void> {
    const next = await agent.exec('echo "[$MARK]"');
    expect(next).toMatchObject({ stdout: '[]', stderr: STATE_RESET_NOTICE, state_reset: true, exit_code: 0 });
    const after = await agent.exec('echo again');
    expect(after).toMatchObject({ stderr: '', state_reset: false });
  }

  it('exit 3 → exit_code 3 with output kept, then a fresh shell', async () => {
    await agent.exec('export MARK=set');
    const r = await agent.exec('echo bye; echo err >&2; exit 3');
    expect(r).toMatchObject({ stdout: 'bye', stderr: 'err', exit_code: 3, timed_out: false, state_reset: false });
    await expectFreshShell();
  });

  it('kill -9 $$ → 137', async () => {
    await agent.exec('export MARK=set');
    expect((await agent.exec('printf partial; kill -9 $$')).exit_code).toBe(137);
    await expectFreshShell();
  });

  it('set -e persists like in a terminal: a later failure ends the shell', async () => {
    await agent.exec('export MARK=set');
    expect((await agent.exec('set -e; false')).exit_code).toBe(1);
    await expectFreshShell();
    await agent.exec('export MARK=set; set -e');
    expect((await agent.exec('echo fine')).exit_code).toBe(0);
    expect((await agent.exec('false')).exit_code).toBe(1);
    await expectFreshShell();
  });

  it('a shell killed while idle is replaced and the next command runs in full', async () => {
    await agent.exec('export MARK=set');
    const shell = processRef(Number((await agent.exec('echo $$')).stdout));
    expect(signalProcess(shell, 'SIGKILL')).toBe(true);
    await waitFor(() => !isAlive(shell), 5_000, 'shell death');
    const r = await agent.exec('echo ran; echo "[$MARK]"');
    expect(r).toMatchObject({ stdout: 'ran\n[]', stderr: STATE_RESET_NOTICE, state_reset: true });
  });

  it('exec into another program that exits counts as shell death', async () => {
    await agent.exec('export MARK=set');
    expect((await agent.exec('exec sh -c "exit 5"')).exit_code).toBe(5);
    await expectFreshShell();
  });
});
