import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { isAlive, processRef } from '@cli-mcp/testing';
import { AGENT_NODE_FLAGS } from '@cli-mcp/common';
import { SessionErrorCode } from '@cli-mcp/session';
import { afterEach, expect, it, vi } from 'vitest';
import { AGENT_ENTRY, isolationProblem, ISOLATIONS } from './support/environment.js';
import { describeWhenReady } from '../../support/prerequisites.js';
import { agentPidOf, descendantsOf, pidOf } from './support/processes.js';
import { createSessionStack, type SessionStack } from './support/session-stack.js';

for (const isolation of ISOLATIONS) describeWhenReady(`LocalBackend with the real agent (isolation=${isolation})`, isolationProblem(isolation), () => {
  let stack: SessionStack | undefined;
  const make = async (options: Parameters<typeof createSessionStack>[1] = {}) => (stack = await createSessionStack(isolation, options));
  afterEach(async () => {
    await stack?.close();
    stack = undefined;
  });

  it('keeps cwd and environment of a session across calls', async () => {
    const { run } = await make();
    const first = await run('s-persist', 'mkdir -p sub && cd sub && export GREETING=hello && echo started');
    expect(first.response).toMatchObject({ stdout: 'started', exit_code: 0 });
    expect(first.acquirePath).toBe('create');
    const second = await run('s-persist', 'echo "$GREETING from $(basename "$PWD")"');
    expect(second.response.stdout).toBe('hello from sub');
    expect(second.acquirePath).toBe('cache');
    expect(second.sandboxRecreated).toBe(false);
    const home = await run('s-persist', 'echo "$HOME"; env | grep -c ^CLI_MCP_ || true');
    expect(home.response.stdout.split('\n')[0]).toBe(isolation === 'bwrap' ? '/workspace' : join(stack!.stateDir, 'sessions/s-persist/workspace'));
    const metrics = await stack!.registry.metrics();
    expect(metrics).toContain('cli_mcp_sandbox_ready_seconds_count 1');
    expect(metrics).toContain('cli_mcp_exec_duration_seconds_count{outcome="ok"} 3');
  });

  it('ends a session on DELETE: the agent process and the workspace are gone', async () => {
    const { run, backend, manager, stateDir } = await make();
    await run('s-delete', 'echo data > file.txt');
    const pid = pidOf((await backend.find('s-delete'))!.sandboxName);
    const sandbox = processRef(pid);
    expect(isAlive(sandbox)).toBe(true);
    const tree = descendantsOf(pid).map(processRef);
    expect(tree.length).toBeGreaterThan(0);
    await manager.end('s-delete', new AbortController().signal);
    expect(isAlive(sandbox)).toBe(false);
    // bwrap's inner processes die by PR_SET_PDEATHSIG right after their parent: wait for that, bounded.
    await vi.waitFor(() => expect(tree.filter(isAlive)).toEqual([]), { timeout: 10_000, interval: 50 });
    expect(existsSync(join(stateDir, 'sessions/s-delete'))).toBe(false);
    expect(await backend.find('s-delete')).toBeUndefined();
    await manager.end('s-delete', new AbortController().signal);
    const again = await run('s-delete', 'ls');
    expect(again.response.stdout).toBe('');
    expect(again.sandboxRecreated).toBe(false);
  });

  it('reaps an idle session', async () => {
    const { run, backend, ended } = await make({ idleTimeoutMs: 1_500 });
    await run('s-idle', 'echo hi > file.txt');
    const sandbox = processRef(pidOf((await backend.find('s-idle'))!.sandboxName));
    await ended('s-idle', 'idle');
    expect(isAlive(sandbox)).toBe(false);
    expect(backend.activeSessions).toBe(0);
    // The backend told the manager (onSandboxGone): no stale cached URL, a new sandbox that says state was lost.
    // What the next command finds matches what the result says: nothing of the earlier session.
    const back = await run('s-idle', 'echo back; ls -A | grep -v "^.cli-mcp$" | wc -l');
    expect(back.response.stdout).toBe('back\n0');
    expect(back).toMatchObject({ sandboxRecreated: true, sandboxLoss: { shellState: true, files: true } });
  });

  it('cancels a running command by request id, and never creates a sandbox to cancel', async () => {
    const { manager, backend } = await make();
    expect(await manager.cancel('s-nobody', 'mcp-1')).toBe('none');
    expect(backend.activeSessions).toBe(0);
    await manager.execute('s-cancel', { command: 'true' }, new AbortController().signal);
    const running = manager.execute('s-cancel', { command: 'sleep 25', timeout: 30, request_id: 'mcp-7' }, new AbortController().signal);
    await vi.waitFor(async () => expect(await manager.peek('s-cancel', 'mcp-7', AbortSignal.timeout(2_000))).toMatchObject({ running: true }), { timeout: 10_000, interval: 50 });
    expect(await manager.cancel('s-cancel', 'mcp-7')).toBe('stopped');
    const result = await running;
    expect(result.response).toMatchObject({ cancelled: true, exit_code: 130 });
    expect((await manager.execute('s-cancel', { command: 'echo alive' }, new AbortController().signal)).response.stdout).toBe('alive');
    // The command is done: a late cancel of it (the usual race with completion) finds nothing and arms nothing.
    expect(await manager.cancel('s-cancel', 'mcp-7')).toBe('none');
  });

  it('a cancel that overtakes its command makes the agent refuse it on arrival, once (C-MCP-9, another replica)', async () => {
    const { manager } = await make();
    const never = new AbortController().signal;
    await manager.execute('s-early', { command: 'true' }, never);
    expect(await manager.cancel('s-early', 'mcp-8')).toBe('waiting');
    const refused = await manager.execute('s-early', { command: 'echo ran > ran.txt; sleep 25', timeout: 30, request_id: 'mcp-8' }, never);
    expect(refused.response).toMatchObject({ cancelled: true, exit_code: 130, stdout: '' });
    expect(refused.response.duration_ms).toBeLessThan(1_000);
    // Spent: the next command of that id runs (and the refused one left nothing behind).
    const again = await manager.execute('s-early', { command: 'ls ran.txt 2>&1; echo second', request_id: 'mcp-8' }, never);
    expect(again.response).toMatchObject({ cancelled: false, exit_code: 0 });
    expect(again.response.stdout).toMatch(/No such file[\s\S]*second$/);
  });

  it('eager prepare (initialize, tools/list) and the first command start ONE agent, counted once (C-MCP-13)', async () => {
    const { manager, registry, backend } = await make();
    const never = new AbortController().signal;
    // Issued together, so all three wait on the one start (an agent takes ~200 ms to come up).
    const [initialize, toolsList, call] = await Promise.all([
      manager.prepare('s-eager', never),
      manager.prepare('s-eager', never),
      manager.execute('s-eager', { command: 'echo first' }, never),
    ]);
    expect([initialize, toolsList, call.acquirePath]).toEqual(['create', 'create', 'create']);
    expect(call.response.stdout).toBe('first');
    expect(backend.activeSessions).toBe(1);
    const metrics = await registry.metrics();
    expect(metrics).toContain('cli_mcp_sandbox_ready_seconds_count 1'); // one agent spawned
    expect(metrics).toContain('cli_mcp_sandbox_acquisitions_total{trigger="eager",result="ok"} 1');
    expect(metrics).not.toContain('trigger="call"');
    expect(metrics).toContain('cli_mcp_session_lookups_total{tier="backend",result="miss"} 1');
    expect(metrics).toContain('cli_mcp_session_lookups_total{tier="backend",result="shared"} 2');
    expect(metrics).toContain('cli_mcp_session_acquire_seconds_count{path="create"} 1');
  });

  it('refuses a session beyond maxSessions', async () => {
    const { run } = await make({ maxSessions: 1 });
    await run('s-one', 'true');
    await expect(run('s-two', 'true')).rejects.toMatchObject({
      code: SessionErrorCode.CapacityExhausted,
      message: 'maximum number of sessions (1) reached: end one with DELETE /sessions/{id} or raise --max-sessions',
    });
  });

  it('claims a warm agent for the first command and refills the pool', async () => {
    const { run, backend } = await make({ warmPoolSize: 1 });
    await backend.start();
    await vi.waitFor(() => expect(backend.warmReady).toBe(1), { timeout: 25_000, interval: 50 });
    const first = await run('s-warm', 'echo warm > proof.txt && cat proof.txt && pwd');
    expect(first.acquirePath).toBe('claim');
    expect(first.response.stdout.split('\n')[0]).toBe('warm');
    if (isolation === 'bwrap') expect(first.response.stdout.split('\n')[1]).toBe('/workspace');
    await vi.waitFor(() => expect(backend.warmReady).toBe(1), { timeout: 25_000, interval: 50 });
    expect((await run('s-warm', 'cat proof.txt')).response.stdout).toBe('warm');
  });

  it('applies the server\'s max timeout, however low or high (C-AG-14)', async () => {
    const { manager } = await make({ maxTimeoutSeconds: 1, defaultTimeoutSeconds: 1 });
    const capped = await manager.execute('s-max', { command: 'sleep 3; echo finished', timeout: 10 }, new AbortController().signal);
    expect(capped.response).toMatchObject({ timed_out: true, exit_code: 137 });
    await stack!.close();
    await make({ maxTimeoutSeconds: 600, defaultTimeoutSeconds: 60 });
    // Asked of the agent, not read from /proc/<agent>/environ: a non-dumpable agent's is closed to its own user
    // (issue 22 item 4). Its own default maximum is 300 s; 500 s passes only with the server's 600.
    const long = await stack!.manager.execute('s-600', { command: 'true', timeout: 500 }, new AbortController().signal);
    expect(long.response).toMatchObject({ exit_code: 0, timeout_seconds: 500 });
  });

  it('runs the agent with the agent\'s Node flags (a 1 MB young generation: a long session\'s agent stays small)', async () => {
    const { run, backend } = await make();
    await run('s-flags', 'true');
    const agent = agentPidOf(pidOf((await backend.find('s-flags'))!.sandboxName), AGENT_ENTRY);
    const argv = readFileSync(`/proc/${agent}/cmdline`, 'utf8').split('\0').filter(Boolean);
    expect(argv.slice(1, -1)).toEqual([...AGENT_NODE_FLAGS]);
    expect(AGENT_NODE_FLAGS).toContain('--max-semi-space-size=1');
  });

  it('recreates a crashed agent: files persist, shell state is lost, the result says so', async () => {
    const { run, backend, ended } = await make();
    await run('s-crash', 'echo kept > file.txt; export LOST=yes');
    const pid = agentPidOf(pidOf((await backend.find('s-crash'))!.sandboxName), AGENT_ENTRY);
    const crashed = ended('s-crash', 'crashed');
    process.kill(pid, 'SIGKILL');
    await crashed;
    const after = await run('s-crash', 'cat file.txt; echo "lost=${LOST:-}"');
    // The result says what the command found: files kept, shell state lost (issue 8 §5).
    expect(after).toMatchObject({ sandboxRecreated: true, sandboxLoss: { shellState: true, files: false } });
    expect(after.response.stdout).toBe('kept\nlost=');
    expect((await run('s-crash', 'true')).sandboxRecreated).toBe(false);
  });
});
