import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isAlive, processRef } from '@cli-mcp/testing';
import { startAgent, stopAllAgents, TOKEN, waitFor, type TestAgent } from './agent-harness.js';

// C-MCP-11 in the engine: a command still running at its yield point becomes a background job of the session
// shell; later commands run at once, plain job control works on it, its output goes to its own files.
const YIELD = 1;

describe('sandbox-agent: yield at the yield point (C-MCP-11)', () => {
  let agent: TestAgent;
  beforeAll(async () => {
    agent = await startAgent();
  });
  afterAll(stopAllAgents);

  const file = (path: string | undefined): string => readFileSync(path!, 'utf8');

  it('a list becomes job %N; wait %N reports its exit status; its file holds the rest of its output', async () => {
    await agent.exec('cd /tmp');
    const started = Date.now();
    const r = await agent.exec('echo first; sleep 2.5; echo done; sh -c "exit 3"', { yield_after: YIELD, timeout: 30 });
    expect(Date.now() - started).toBeLessThan(2_400);
    expect(r).toMatchObject({ running: true, yield_mode: 'job', exit_code: -1, stdout: 'first', timed_out: false });
    expect(r.job).toMatch(/^%\d+$/);
    expect(isAlive(processRef(r.job_pid!))).toBe(true);
    // Later commands run at once, in the session's cwd, and see the job.
    const pwd = await agent.exec('pwd; jobs');
    expect(pwd.stdout.split('\n')[0]).toBe('/tmp');
    // `jobs` shows the user's own command, nothing of the protocol.
    expect(pwd.stdout).toMatch(/\[\d+\]\+\s+Running\s+\( echo first; sleep 2\.5; echo done; sh -c "exit 3" \) &/);
    expect(pwd.stdout).not.toContain('climcp');
    const waited = await agent.exec(`wait ${r.job}; echo "status=$?"`, { timeout: 30 });
    expect(waited).toMatchObject({ stdout: 'status=3', exit_code: 0 });
    await waitFor(() => file(r.stdout_file).includes('done'), 5_000, 'job output in its file');
    expect(file(r.stdout_file)).toBe('first\ndone\n');
    await agent.exec('cd ~');
  });

  it('output of later commands never mixes with the job\'s', async () => {
    const r = await agent.exec('for i in $(seq 1 40); do echo job-$i; echo job-err-$i >&2; sleep 0.05; done', { yield_after: YIELD, timeout: 30 });
    expect(r.yield_mode).toBe('job');
    for (let i = 0; i < 5; i++) {
      const later = await agent.exec(`echo later-${i}; echo later-err-${i} >&2`);
      expect(later).toMatchObject({ stdout: `later-${i}`, stderr: `later-err-${i}` });
    }
    await agent.exec(`wait ${r.job}`, { timeout: 30 });
    await waitFor(() => file(r.stdout_file).includes('job-40'), 5_000, 'job finished writing');
    expect(file(r.stdout_file)).not.toContain('later');
    expect(file(r.stderr_file)).not.toContain('later');
    expect(file(r.stdout_file).trim().split('\n')).toHaveLength(40);
  });

  it.each([
    ['a pipeline', 'sleep 2.5 | cat; '],
    ['a ( … ) subshell', '( sleep 2.5; echo sub )'],
    ['a for loop', 'for i in $(seq 1 25); do sleep 0.1; done'],
    ['a program', 'sleep 2.5'],
  ])('%s is detached', async (_name, command) => {
    const r = await agent.exec(command, { yield_after: YIELD, timeout: 30 });
    expect(r).toMatchObject({ running: true, yield_mode: 'job' });
    expect((await agent.exec(`wait ${r.job}; echo $?`, { timeout: 30 })).stdout).toBe('0');
  });

  // Found by the oracle: after the stop bash's status is that of the pipeline's LAST element, which may have ended
  // before (128 + its status), and `!` negates it — the agent must not read "stopped" from the status 147 alone.
  it.each([
    ['a negated pipeline', '! sleep 2.5 | cat'],
    ['a pipeline whose last element ended first', 'sleep 2.5 | true'],
  ])('%s is detached and continues', async (_name, command) => {
    const r = await agent.exec(command, { yield_after: YIELD, timeout: 30 });
    expect(r).toMatchObject({ running: true, yield_mode: 'job' });
    const waited = await agent.exec(`wait ${r.job}; echo "status=$?"; jobs`, { timeout: 30 });
    expect(waited.stdout).toMatch(/^status=\d+$/);
  });

  it('with an ERR trap a program stays in the shell: stopping it would run the trap (oracle counterexample)', async () => {
    await agent.exec("trap 'echo ERR-TRAP-RAN' ERR");
    const r = await agent.exec('sleep 2.5', { yield_after: YIELD, timeout: 30 });
    expect(r).toMatchObject({ running: true, yield_mode: 'shell' });
    const after = await agent.exec('echo after; trap - ERR', { timeout: 30 });
    expect(after.stdout).toBe('after');
    expect(`${r.stdout}${after.stdout}`).not.toContain('ERR-TRAP-RAN');
  });

  it('a builtin while loop runs as a subshell job, and keeps going until told', async () => {
    const r = await agent.exec('while true; do sleep 0.1; [ -e stop-loop ] && break; done; echo stopped', { yield_after: YIELD, timeout: 60 });
    expect(r).toMatchObject({ running: true, yield_mode: 'job' });
    const waited = await agent.exec(`touch stop-loop; wait ${r.job}; echo "status=$?"; rm stop-loop`, { timeout: 30 });
    expect(waited.stdout).toBe('status=0');
    await waitFor(() => file(r.stdout_file) === 'stopped\n', 5_000, 'loop output');
  });

  it('a command that must stay in the shell says so; a later call returns at its own yield point with its progress', async () => {
    const r = await agent.exec('cd /tmp; echo working; sleep 3; echo done; cd ~', { yield_after: YIELD, timeout: 30 });
    expect(r).toMatchObject({ running: true, yield_mode: 'shell', stdout: 'working', exit_code: -1 });
    expect(r.yield_reason).toContain('runs in the session shell itself');
    const queued = await agent.exec('echo never-runs', { yield_after: YIELD });
    expect(queued).toMatchObject({ running: true, yield_mode: 'queued', stdout: '', exit_code: -1 });
    expect(queued.yield_reason).toContain('working');
    // Once the first command ends, the shell is free again; the queued one never ran.
    await waitFor(async () => (await agent.call('GET', '/health')).json.busy === false, 10_000, 'shell free');
    expect((await agent.exec('echo free')).stdout).toBe('free');
    expect(file(r.stdout_file)).toBe('working\ndone\n');
  });

  it('a lone wait is interrupted at its yield point; the job keeps running', async () => {
    const r = await agent.exec('sleep 4', { yield_after: YIELD, timeout: 30 });
    expect(r.yield_mode).toBe('job');
    const waiting = await agent.exec(`wait ${r.job}`, { yield_after: YIELD, timeout: 30 });
    expect(waiting).toMatchObject({ running: true, yield_mode: 'waiting', exit_code: -1 });
    expect(isAlive(processRef(r.job_pid!))).toBe(true);
    expect((await agent.exec(`wait ${r.job}; echo $?`, { timeout: 30 })).stdout).toBe('0');
  });

  it('under set -e a job is not detached (stopping it would end the shell)', async () => {
    await agent.exec('set -e');
    const r = await agent.exec('sleep 2', { yield_after: YIELD, timeout: 30 });
    expect(r.yield_mode).toBe('shell');
    await waitFor(async () => (await agent.call('GET', '/health')).json.busy === false, 10_000, 'shell free');
    await agent.exec('set +e');
    expect(await agent.exec('echo ok')).toMatchObject({ stdout: 'ok', state_reset: false });
  });

  it('kill %N stops the job', async () => {
    // The job takes 2 s to die of its TERM, so `wait` is already waiting when it does. A job that died before
    // `wait %N` started is one bash itself forgets (it prints "Terminated" and drops it: plain `bash` with `set -m`
    // does the same), which a loaded machine made happen here: docs/agent.md "Kept statuses".
    const r = await agent.exec('bash -c \'trap "sleep 2; exit 143" TERM; sleep 60 & wait\'', { yield_after: YIELD, timeout: 120 });
    expect(r.yield_mode).toBe('job');
    const job = processRef(r.job_pid!);
    expect(isAlive(job)).toBe(true);
    const killed = await agent.exec(`kill ${r.job}; wait ${r.job}; echo $?`);
    expect(killed.stdout).toBe('143');
    expect(isAlive(job)).toBe(false);
  });

  it('a job is killed at its own timeout and wait reports 137', async () => {
    const r = await agent.exec('sleep 60', { yield_after: YIELD, timeout: 2 });
    expect(r.yield_mode).toBe('job');
    const waited = await agent.exec(`wait ${r.job}; echo $?`, { timeout: 30 });
    expect(waited.stdout).toBe('137');
    await waitFor(() => file(r.stderr_file).includes('timed out'), 5_000, 'timeout notice');
  });

  it('a cancel naming a call that already yielded does not reach its job', async () => {
    const r = await agent.exec('sleep 30', { yield_after: YIELD, timeout: 60, request_id: 'yielded-call' });
    expect(r.yield_mode).toBe('job');
    const cancel = await agent.call('POST', '/cancel', { request_id: 'yielded-call' }, { authorization: `Bearer ${TOKEN}` });
    expect(cancel.json).toEqual({ cancelled: false });
    expect(isAlive(processRef(r.job_pid!))).toBe(true);
    await agent.exec(`kill ${r.job}`);
  });
});

describe('sandbox-agent: jobs end with the agent', () => {
  afterAll(stopAllAgents);

  it('stopping the agent leaves no process of a detached job behind', async () => {
    const agent = await startAgent();
    const r = await agent.exec('sleep 60 | cat', { yield_after: YIELD, timeout: 120 });
    expect(r.yield_mode).toBe('job');
    const pids = (await agent.exec(`jobs -p ${r.job}; pgrep -g ${r.job_pid}`)).stdout.split('\n').map((pid) => processRef(Number(pid)));
    expect(pids.length).toBeGreaterThan(1);
    expect(await agent.stop(false)).toEqual({ code: 0, signal: null });
    await waitFor(() => pids.every((pid) => !isAlive(pid)), 5_000, 'job processes gone');
  });
});
