import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { STATE_RESET_NOTICE } from '@cli-mcp/agent-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isAlive, processRef, processRefFromStat, signalProcess, type ProcessRef } from '@cli-mcp/testing';
import { startAgent, stopAllAgents, waitFor, type TestAgent } from './agent-harness.js';

// C-AG-7: at the deadline only the command's tree dies; the shell keeps its state (the Go agent killed bash and
// lost cwd/env, §18 item 1). Bounds are generous ("well before the natural end"), never exact timings.
/**
 * A SIGKILLed process is gone once the kernel has run its exit, which a loaded machine may not have done by the
 * time the agent answers (the agent waits a short settle time for it, not forever): these wait for it, bounded.
 */
async function killedAndGone(ref: ProcessRef): Promise<boolean> {
  return waitFor(() => !isAlive(ref), 10_000, `process ${ref.pid} gone`).then(() => true);
}

describe('sandbox-agent: timeouts', () => {
  let agent: TestAgent;
  /** `pgrep -f pattern` finds nothing, within 10 s (see killedAndGone). */
  const noneLeft = (pattern: string) => waitFor(async () => (await agent.exec(`pgrep -f '${pattern}' || echo none`)).stdout === 'none', 10_000, `no ${pattern}`);
  const leftovers: ProcessRef[] = [];
  beforeAll(async () => {
    agent = await startAgent();
  });
  afterAll(async () => {
    for (const leftover of leftovers) signalProcess(leftover, 'SIGKILL');
    await stopAllAgents();
  });

  it('kills the command tree at the deadline and keeps cwd and env', async () => {
    await agent.exec('mkdir -p keep && cd keep && export KEPT=yes');
    const started = Date.now();
    const r = await agent.exec("sh -c 'cat /proc/$$/stat > pid.txt; exec sleep 30'", { timeout: 1 });
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(r).toMatchObject({ timed_out: true, exit_code: 137, state_reset: false });
    expect(r.stderr.endsWith('command timed out')).toBe(true);
    expect(await killedAndGone(processRefFromStat(readFileSync(join(agent.workdir, 'keep', 'pid.txt'), 'utf8')))).toBe(true);
    const after = await agent.exec('pwd; echo $KEPT');
    expect(after).toMatchObject({ stdout: `${agent.workdir}/keep\nyes`, state_reset: false, stderr: '' });
    await agent.exec(`cd ${agent.workdir}`);
  });

  it('SIGKILLs what ignores SIGTERM after the grace period', async () => {
    const started = Date.now();
    const r = await agent.exec(`sh -c 'trap "" TERM; cat /proc/$$/stat > stubborn.pid; sleep 30; echo survived'`, { timeout: 1 });
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(r).toMatchObject({ timed_out: true, exit_code: 137, stdout: '', state_reset: false });
    expect(await killedAndGone(processRefFromStat(readFileSync(join(agent.workdir, 'stubborn.pid'), 'utf8')))).toBe(true);
    expect((await agent.exec('echo $KEPT')).stdout).toBe('yes');
  });

  // The SIGTERM round kills the shell in between, so the stubborn process is no longer in bash's tree when the
  // SIGKILL round looks again (it was reparented): the first round's survivors are killed all the same.
  it('SIGKILLs what ignores SIGTERM even when the SIGTERM round killed its parent', async () => {
    const r = await agent.exec(`bash -c "sh -c 'trap \\"\\" TERM; cat /proc/\\$\\$/stat > orphaned.pid; sleep 30.3031'; echo after"`, { timeout: 1 });
    expect(r).toMatchObject({ timed_out: true, stdout: '', state_reset: false });
    expect(await killedAndGone(processRefFromStat(readFileSync(join(agent.workdir, 'orphaned.pid'), 'utf8')))).toBe(true);
    expect(await noneLeft('sleep 30[.]3031')).toBe(true);
  });

  it('keeps partial output of a timed-out command on both streams', async () => {
    const r = await agent.exec('echo partial_line; echo partial_err >&2; sleep 30', { timeout: 1 });
    expect(r.timed_out).toBe(true);
    expect(r.stdout).toBe('partial_line');
    expect(r.stderr.startsWith('partial_err')).toBe(true);
    expect(r.stderr.endsWith('\ncommand timed out')).toBe(true);
  });

  it('kills a whole pipeline and subshell tree', async () => {
    // Unusual durations identify these processes among everything else running on the machine.
    const r = await agent.exec('(sleep 30.1011 | sleep 30.1012) & sleep 30.1013 | cat', { timeout: 1 });
    expect(r.timed_out).toBe(true);
    expect(await noneLeft('sleep 30[.]101[123]')).toBe(true);
  });

  it('skips the rest of the command list after the deadline (sleep 30; touch … never touches)', async () => {
    const r = await agent.exec('sleep 30.2021; touch after-timeout.txt; echo not-reached', { timeout: 1 });
    expect(r).toMatchObject({ timed_out: true, exit_code: 137, stdout: '', state_reset: false });
    expect((await agent.exec('ls after-timeout.txt 2>/dev/null || echo absent')).stdout).toBe('absent');
    expect((await agent.exec('echo $KEPT')).stdout).toBe('yes');
  });

  it('breaks a builtin loop at the deadline without replacing the shell (cwd and env kept)', async () => {
    const started = Date.now();
    const r = await agent.exec('while :; do :; done; echo not-reached', { timeout: 1 });
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(r).toMatchObject({ timed_out: true, exit_code: 137, stdout: '', state_reset: false });
    expect(await agent.exec('echo $KEPT')).toMatchObject({ stdout: 'yes', stderr: '', state_reset: false });
  });

  it('replaces a shell that cannot be interrupted (USR1 ignored, builtin loop); the next command carries the reset notice', async () => {
    const started = Date.now();
    const r = await agent.exec("trap '' USR1; while :; do :; done", { timeout: 1 });
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(r).toMatchObject({ timed_out: true, exit_code: 137 });
    const next = await agent.exec('echo fresh');
    expect(next).toMatchObject({ stdout: 'fresh', stderr: STATE_RESET_NOTICE, state_reset: true });
  });

  it('does not wait for background jobs, and jobs of earlier commands survive a later timeout', async () => {
    const started = Date.now();
    const bg = await agent.exec('sleep 100 & echo $!');
    expect(Date.now() - started).toBeLessThan(10_000);
    const bgJob = processRef(Number(bg.stdout));
    leftovers.push(bgJob);
    const nohup = await agent.exec('nohup sleep 101 >/dev/null 2>&1 & echo $!');
    // Under job control a background job leads its own process group, so setsid(1) forks: its child is the sleep.
    await agent.exec("setsid sh -c 'echo $$ > s.pid; exec sleep 102' >/dev/null 2>&1 &");
    const nohupJob = processRef(Number(nohup.stdout));
    leftovers.push(nohupJob);
    const setsidPid = await waitFor(() => Number(readIfExists(join(agent.workdir, 's.pid'))), 5_000, 'setsid pid');
    await waitFor(() => readProcName(setsidPid) === 'sleep', 5_000, 'setsid child exec');
    const setsidJob = processRef(setsidPid);
    leftovers.push(setsidJob);
    // A command that itself starts nohup/setsid/plain background jobs and then hangs.
    const r = await agent.exec('nohup sleep 103 >/dev/null 2>&1 & cat /proc/$!/stat > n.pid; sleep 104 & cat /proc/$!/stat > p.pid; sleep 30', { timeout: 1 });
    expect(r.timed_out).toBe(true);
    const innerNohup = processRefFromStat(readFileSync(join(agent.workdir, 'n.pid'), 'utf8'));
    const innerPlain = processRefFromStat(readFileSync(join(agent.workdir, 'p.pid'), 'utf8'));
    leftovers.push(innerNohup, innerPlain);
    expect(isAlive(bgJob)).toBe(true);
    expect(isAlive(nohupJob)).toBe(true);
    expect(isAlive(setsidJob)).toBe(true);
    expect(isAlive(innerNohup)).toBe(true);
    expect(await killedAndGone(innerPlain)).toBe(true);
    expect((await agent.exec('echo ok')).state_reset).toBe(false);
  });

  it('late background output goes to the background log, not to the next command', async () => {
    const first = await agent.exec('(sleep 0.3; echo late-out; echo late-err >&2; touch late.flag) & echo started');
    expect(first.stdout).toBe('started');
    await waitFor(() => existsIn(agent.workdir, 'late.flag'), 10_000, 'background job done');
    const next = await agent.exec('echo next');
    expect(next).toMatchObject({ stdout: 'next', stderr: '' });
    await waitFor(() => /late-out[\s\S]*late-err|late-err[\s\S]*late-out/.test(readIfExists(join(agent.outputDir, 'background.log'))),
      5_000, 'background log');
  });
});

describe('sandbox-agent: timeout clamping (C-MCP-3 rules)', () => {
  afterAll(stopAllAgents);

  it('absent, zero or negative → the default; above the max → the max', async () => {
    const agent = await startAgent({ env: { SANDBOX_DEFAULT_TIMEOUT_SECONDS: '1', SANDBOX_MAX_TIMEOUT_SECONDS: '2' } });
    for (const timeout of [undefined, 0, -5, null]) {
      const started = Date.now();
      const r = await agent.exec('sleep 30', timeout === undefined ? {} : { timeout });
      expect(r.timed_out, `timeout ${timeout}`).toBe(true);
      expect(Date.now() - started).toBeLessThan(10_000);
    }
    const started = Date.now();
    expect((await agent.exec('sleep 30', { timeout: 1000 })).timed_out).toBe(true);
    expect(Date.now() - started).toBeLessThan(10_000);
    expect((await agent.exec('sleep 1.2; echo in-time', { timeout: 1000 })).stdout).toBe('in-time');
  });

  // C-AG-14: the max is whatever SANDBOX_MAX_TIMEOUT_SECONDS says — beyond the 300 s default — and every result names
  // the timeout that was applied.
  it('applies a max above 300 s as configured and reports the applied timeout in every result', async () => {
    const agent = await startAgent({ env: { SANDBOX_MAX_TIMEOUT_SECONDS: '7200' } });
    expect((await agent.exec('true', { timeout: 3600 })).timeout_seconds).toBe(3600);
    expect((await agent.exec('true', { timeout: 100_000 })).timeout_seconds).toBe(7200);
    expect((await agent.exec('true')).timeout_seconds).toBe(60);
    const timedOut = await agent.exec('sleep 30', { timeout: 0.5 });
    expect(timedOut).toMatchObject({ timed_out: true, timeout_seconds: 0.5 });
  });

  it('with the default max, a larger request is clamped to 300 s and says so', async () => {
    const agent = await startAgent();
    expect((await agent.exec('true', { timeout: 900 })).timeout_seconds).toBe(300);
  });

  it('has no HTTP time limit that could end a running command', async () => {
    const agent = await startAgent({ env: { SANDBOX_MAX_TIMEOUT_SECONDS: '86400' } });
    const listening = await agent.waitForLog((l) => l.msg === 'listening');
    // 0 = no limit. keep-alive only closes idle connections; headers arrive before the command starts.
    expect(listening).toMatchObject({ request_timeout_ms: 0, socket_timeout_ms: 0 });
  });
});

function existsIn(dir: string, name: string): boolean {
  try {
    readFileSync(join(dir, name));
    return true;
  } catch {
    return false;
  }
}

function readIfExists(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return '';
  }
}

function readProcName(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
  } catch {
    return '';
  }
}
