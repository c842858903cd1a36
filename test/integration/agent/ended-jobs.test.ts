import type { EndedJob } from '@cli-mcp/agent-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAgent, stopAllAgents, waitFor, type TestAgent } from './agent-harness.js';

// C-MCP-15 in the engine: the end of a background job (made by a yield or by `&`) leads the next result, once; its
// status survives bash forgetting the job; a `wait` held in the shell names its job and its later output is reported.
const YIELD = 1;

describe('sandbox-agent: jobs the model hears about (C-MCP-15)', () => {
  let agent: TestAgent;
  beforeAll(async () => {
    agent = await startAgent();
  });
  afterAll(stopAllAgents);

  /** Runs `true` until a result names an ended job (the job ends on its own clock). */
  const nextEnded = async (): Promise<EndedJob[]> =>
    (await waitFor(async () => (await agent.exec('true')).ended_jobs, 15_000, 'a result naming an ended job'))!;

  it('a yield-made job: its end leads the next result once, with status, duration and file', async () => {
    const r = await agent.exec('echo BEFORE; sleep 2; echo JOBDONE; sh -c "exit 3"', { yield_after: YIELD, timeout: 30 });
    expect(r).toMatchObject({ running: true, yield_mode: 'job' });
    const ended = await nextEnded();
    expect(ended).toHaveLength(1);
    expect(ended[0]).toMatchObject({ job: r.job, exit_code: 3, stdout_file: r.stdout_file });
    expect(ended[0]!.duration_ms).toBeGreaterThanOrEqual(2_000);
    expect((await agent.exec('true')).ended_jobs).toBeUndefined();
    // bash forgot the job once its end was listed; `wait %N` still answers its status.
    expect((await agent.exec(`wait ${r.job}; echo "rc=$?"`)).stdout).toBe('rc=3');
    expect((await agent.exec(`wait ${r.job}; echo "rc=$?"`)).stdout).toBe('rc=3');
    // Everything else about `wait` is bash's own; no protocol function is left behind.
    expect((await agent.exec('wait %9; echo "rc=$?"')).stdout).toBe('rc=127');
    expect((await agent.exec('declare -F wait || echo none')).stdout).toBe('none');
  });

  it('a job the user started with & is reported too, once; wait %N answers its kept status', async () => {
    const started = await agent.exec('sh -c "sleep 1; exit 5" & echo started');
    expect(started.stdout).toBe('started');
    expect(started.ended_jobs).toBeUndefined();
    const ended = await nextEnded();
    expect(ended).toEqual([expect.objectContaining({ exit_code: 5 })]);
    expect(ended[0]!.job).toMatch(/^%\d+$/);
    expect((await agent.exec('true')).ended_jobs).toBeUndefined();
    expect((await agent.exec(`wait ${ended[0]!.job}`)).exit_code).toBe(5);
  });

  it('a held wait names its job; its later output and status lead the next result', async () => {
    const r = await agent.exec('echo BEFORE; sleep 3; echo JOBDONE', { yield_after: YIELD, timeout: 30 });
    expect(r.yield_mode).toBe('job');
    const held = await agent.exec(`wait ${r.job}; echo "rc=$?"`, { yield_after: YIELD, timeout: 30 });
    expect(held).toMatchObject({ running: true, yield_mode: 'shell', job: r.job });
    const next = await agent.exec('echo next', { timeout: 30 });
    expect(next.stdout).toBe('next');
    expect(next.ended_jobs).toEqual([expect.objectContaining({ waited_for: r.job, exit_code: 0, stdout: 'rc=0' })]);
    // The user's wait took the job (bash keeps no status of a job it started in the foreground): a later `wait %N`
    // says so instead of "no such job", and nothing of the protocol is left behind.
    const again = await agent.exec(`wait ${r.job}; echo "rc=$?"`);
    expect(again.stdout).toBe('rc=127');
    expect(again.stderr).toBe(`bash: wait: ${r.job}: no longer a job of this shell: an earlier command in this session took it (its wait or jobs showed the exit status; disown lets it run untracked)`);
    expect((await agent.exec('declare -F wait || echo none')).stdout).toBe('none');
  });

  it('a job the user disowned: wait %N says it is no longer a job of this shell, not "no such job"', async () => {
    const started = await agent.exec('sleep 30 & echo started');
    expect(started.stdout).toBe('started');
    const gone = await agent.exec('disown %1; jobs; echo listed');
    expect(gone.stdout).toBe('listed');
    const r = await agent.exec('wait %1; echo "rc=$?"; kill %1 2>/dev/null || kill $! ');
    expect(r.stdout).toBe('rc=127');
    expect(r.stderr).toMatch(/^bash: wait: %1: no longer a job of this shell: /);
  });
});
