import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bash, connectHttpClient, connectStdioClient, eventually, structuredOf, textOf } from './support/mcp-client.js';
import { processesMatching, useHttpServer, useStdioState } from './support/server-process.js';

/**
 * C-MCP-11 through the built server and real SDK clients, on both transports, with a short yield point: a command
 * still running at it comes back as a normal result naming its job, and the session goes on at once.
 */
const YIELD_ARGS = ['--yield-after', '2s'];

type Structured = ReturnType<typeof structuredOf> & { job?: string; stdout_file?: string; stderr_file?: string };

function yieldSuite(connect: () => Promise<Client>): void {
  let client: Client;
  beforeAll(async () => {
    client = await connect();
  });
  afterAll(async () => {
    await client.close();
  });

  const run = async (command: string, timeout?: number): Promise<{ result: CallToolResult; s: Structured }> => {
    const result = await bash(client, command, timeout);
    return { result, s: structuredOf(result) as Structured };
  };

  /** A lone `wait %N` until it returns (each call is bounded by its own yield point) → the job's exit status. */
  const waitJob = async (job: string | undefined): Promise<number> => {
    for (let attempt = 0; attempt < 10; attempt++) {
      const { s } = await run(`wait ${job}`, 60);
      if (s.running !== true) return s.exit_code;
      expect(s.yield_mode).toBe('waiting');
    }
    throw new Error(`job ${job} did not end`);
  };

  it('sleep 5; echo done yields as a job; wait %N returns 0 and its file holds done; cwd is the session\'s', async () => {
    await run('cd /tmp');
    const started = Date.now();
    const { result, s } = await run('sleep 5; echo done', 60);
    expect(Date.now() - started).toBeLessThan(4_500);
    expect(result.isError).toBeFalsy();
    expect(s).toMatchObject({ running: true, yield_mode: 'job', exit_code: -1 });
    expect(textOf(result)).toMatch(/still running after 2\.\d s as background job %\d+ \(pid \d+\)/);
    expect(textOf(result)).toContain(`wait ${s.job}`);
    expect((await run('pwd')).s.stdout).toBe('/tmp');
    // `wait` is bounded by its own call's yield point too: at it, the wait is interrupted and the job runs on.
    let waited = await run(`wait ${s.job}`, 30);
    for (let attempt = 0; waited.s.running === true && attempt < 3; attempt++) {
      expect(waited.s.yield_mode).toBe('waiting');
      waited = await run(`wait ${s.job}`, 30);
    }
    expect(waited.s).toMatchObject({ exit_code: 0 });
    expect(waited.result.isError).toBeFalsy();
    expect((await run(`cat ${s.stdout_file}`)).s.stdout).toBe('done');
    await run('cd /workspace');
  });

  it('a job is killed at its own timeout; a wait on it reports 137 and its stderr file says so', async () => {
    const { s } = await run('sleep 30', 3);
    expect(s.yield_mode).toBe('job');
    // Waiting when the kill comes (at 3 s, before this call's own yield point): bash reports a job killed by a
    // signal once and then forgets it, as in a terminal ("Killed").
    expect((await run(`wait ${s.job}`, 30)).s.exit_code).toBe(137);
    await eventually(async () => (await run(`cat ${s.stderr_file}`)).s.stdout.includes('timed out after 3 s'), 'the timeout notice');
  });

  it('output of later commands never mixes with a chatty job\'s', async () => {
    const { s } = await run('for i in $(seq 1 60); do echo job-$i; echo job-err-$i >&2; sleep 0.05; done', 60);
    expect(s.yield_mode).toBe('job');
    for (let i = 0; i < 3; i++) {
      expect((await run(`echo later-${i}; echo later-err-${i} >&2`)).s).toMatchObject({ stdout: `later-${i}`, stderr: `later-err-${i}` });
    }
    await waitJob(s.job);
    const out = (await run(`cat ${s.stdout_file}`)).s.stdout.split('\n');
    expect(out).toHaveLength(60);
    expect(out.every((line) => line.startsWith('job-'))).toBe(true);
    expect((await run(`grep -c later ${s.stderr_file} || true`)).s.stdout).toBe('0');
  });

  it.each([
    ['a pipeline', 'sleep 4 | cat'],
    ['a ( … ) subshell', '( sleep 4; echo sub )'],
    ['a while loop', 'while true; do sleep 0.2; [ -e /tmp/stop-yield-loop ] && break; done'],
  ])('%s becomes a job that plain job control handles', async (_name, command) => {
    const { s } = await run(command, 60);
    expect(s).toMatchObject({ running: true, yield_mode: 'job' });
    expect((await run('jobs')).s.stdout).toContain('Running');
    await run('touch /tmp/stop-yield-loop');
    expect(await waitJob(s.job)).toBe(0);
    await run('rm -f /tmp/stop-yield-loop');
  });
}

describe('yield with a job handle (C-MCP-11): HTTP', () => {
  const server = useHttpServer({ args: YIELD_ARGS });
  yieldSuite(() => connectHttpClient(server().mcpUrl, 'yield-http'));

  it('DELETE of a session with a running job leaves no process', async () => {
    const client = await connectHttpClient(server().mcpUrl, 'yield-delete');
    const marker = 'sleep 3174';
    const s = structuredOf(await bash(client, `${marker} | cat`, 60));
    expect(s.yield_mode).toBe('job');
    expect(processesMatching(marker).length).toBeGreaterThan(0);
    const response = await fetch(`${new URL(server().mcpUrl).origin}/sessions/yield-delete`, { method: 'DELETE' });
    expect(response.status).toBe(204);
    await eventually(() => processesMatching(marker).length === 0, 'the job to be gone');
    await client.close();
  });
});

describe('yield with a job handle (C-MCP-11): Go JSON result format', () => {
  const server = useHttpServer({ args: [...YIELD_ARGS, '--result-format', 'json'] });

  it('stays the Go object, with the notice at the end of stderr', async () => {
    const client = await connectHttpClient(server().mcpUrl, 'yield-json');
    const result = await bash(client, 'echo before; sleep 4', 60);
    const parsed = JSON.parse(textOf(result)) as Record<string, unknown>;
    expect(Object.keys(parsed)).toEqual(['stdout', 'stderr', 'exit_code', 'duration_ms']);
    expect(parsed).toMatchObject({ stdout: 'before', exit_code: -1 });
    expect(parsed.stderr).toMatch(/background job %\d+/);
    expect(structuredOf(result)).toMatchObject({ running: true, yield_mode: 'job' });
    await client.close();
  });
});

describe('yield with a job handle (C-MCP-11): stdio', () => {
  const argv = useStdioState('yield-stdio', YIELD_ARGS);
  yieldSuite(() => connectStdioClient(argv(), 'yield-stdio'));
});
