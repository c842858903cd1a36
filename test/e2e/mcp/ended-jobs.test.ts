import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bash, connectHttpClient, connectStdioClient, eventually, structuredOf, textOf } from './support/mcp-client.js';
import { useHttpServer, useStdioState } from './support/server-process.js';

/**
 * C-MCP-15 through the built server and real SDK clients, on both transports, with a 1 s yield point: the issue's
 * reproduction (a job, a `wait` that yields in the shell, a second `wait`) — the model is told each end once, first
 * in the text, and the held wait's later output reaches it.
 */
const YIELD_ARGS = ['--yield-after', '1s'];
const ENDED_LINE = /^\[job (%\d+) \(pid \d+\) ended: exit (\d+) · [\d.]+ s · output: (\S+\.stdout), \S+\.stderr\]$/;

function endedSuite(connect: () => Promise<Client>): void {
  let client: Client;
  beforeAll(async () => {
    client = await connect();
  });
  afterAll(async () => {
    await client.close();
  });

  it('a job\'s end leads the next result once; a held wait names its job and its later output is reported', async () => {
    const first = structuredOf(await bash(client, 'echo BEFORE; sleep 2.5; echo JOBDONE', 60));
    expect(first).toMatchObject({ running: true, yield_mode: 'job' });
    const job = first.job as string;
    const held = await bash(client, `wait ${job}; echo rc=$?`, 60);
    expect(structuredOf(held)).toMatchObject({ running: true, yield_mode: 'shell', job });
    expect(textOf(held)).toContain(`(waiting for ${job})`);
    // The held wait ends ~1.5 s later; the next call queues behind it and then runs.
    const next = textOf(await bash(client, 'echo next', 60));
    expect(next.split('\n').slice(0, 4)).toEqual([
      expect.stringMatching(new RegExp(`^\\[the earlier wait for ${job} ended: exit 0 · [\\d.]+ s .*its output after its yield point:\\]$`)),
      'rc=0',
      `[end of the earlier wait for ${job}'s output]`,
      'next',
    ]);
    expect(textOf(await bash(client, 'echo again'))).toMatch(/^again\n\[exit 0/);
  });

  it('the end of a job nobody waited for is told once, and wait %N still answers its status', async () => {
    const first = structuredOf(await bash(client, 'echo BEFORE; sleep 1.5; echo JOBDONE; sh -c "exit 4"', 60));
    expect(first.yield_mode).toBe('job');
    let text = '';
    await eventually(async () => (text = textOf(await bash(client, 'true'))).startsWith('[job '), 'a result naming the ended job');
    const match = ENDED_LINE.exec(text.split('\n')[0]!);
    expect(match?.slice(1)).toEqual([first.job, '4', first.stdout_file]);
    expect(textOf(await bash(client, 'true'))).toMatch(/^\(no output\)/);
    expect(structuredOf(await bash(client, `wait ${first.job}; echo rc=$?`)).stdout).toBe('rc=4');
  });
}

describe('jobs the model hears about (C-MCP-15): HTTP', () => {
  const server = useHttpServer({ args: YIELD_ARGS });
  endedSuite(() => connectHttpClient(server().mcpUrl, 'ended-http'));
});

describe('jobs the model hears about (C-MCP-15): stdio', () => {
  const argv = useStdioState('ended-stdio', YIELD_ARGS);
  endedSuite(() => connectStdioClient(argv(), 'ended-stdio'));
});
