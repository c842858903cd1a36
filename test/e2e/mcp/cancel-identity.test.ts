import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, describe, expect, it } from 'vitest';
import { connectHttpClient, eventually, structuredOf } from './support/mcp-client.js';
import { useHttpServer } from './support/server-process.js';

/**
 * C-MCP-9 cancel identity: two SDK clients of ONE session reuse JSON-RPC ids (each counts from 0). A cancel or a
 * progress peek must reach only the call it names: the server issues each client an id at `initialize`
 * (`Mcp-Session-Id`) and names calls by it.
 */
describe('cancel identity: two clients of one session with the same JSON-RPC id', () => {
  const clients: Client[] = [];
  const server = useHttpServer({ args: ['--progress-interval', '200ms'] });
  afterAll(async () => {
    for (const client of clients) await client.close();
  });

  it('cancelling one leaves the other running; the progress of one never quotes the other', async () => {
    const alpha = await connectHttpClient(server().mcpUrl, 'shared-collide');
    const beta = await connectHttpClient(server().mcpUrl, 'shared-collide');
    clients.push(alpha, beta);
    const alphaProgress: string[] = [];
    const betaProgress: string[] = [];
    // Same history on both clients (initialize = id 0), so both calls below carry JSON-RPC id 1.
    const running = alpha.callTool(
      { name: 'bash', arguments: { command: 'for i in $(seq 1 30); do echo alpha-line-$i; sleep 0.1; done' } },
      undefined,
      { timeout: 120_000, onprogress: (progress) => void alphaProgress.push(progress.message ?? '') },
    ) as Promise<CallToolResult>;
    await eventually(() => alphaProgress.some((message) => message.includes('alpha-line')), 'alpha to report its own output');
    const controller = new AbortController();
    let betaTicked!: () => void;
    const ticked = new Promise<void>((resolve) => (betaTicked = resolve));
    const queued = beta.callTool({ name: 'bash', arguments: { command: 'touch /workspace/beta-ran' } }, undefined, {
      timeout: 120_000,
      signal: controller.signal,
      onprogress: (progress) => {
        betaProgress.push(progress.message ?? '');
        betaTicked();
      },
    });
    await ticked; // beta's call is queued behind alpha's in the sandbox and has been peeked at
    controller.abort('beta gives up');
    await expect(queued).rejects.toThrow();

    const result = await running;
    expect(structuredOf(result)).toMatchObject({ exit_code: 0 });
    expect(structuredOf(result).stdout.split('\n')).toHaveLength(30);
    expect(betaProgress.join('\n')).not.toContain('alpha');
    // Commands run in arrival order: had beta's call not been cancelled, it would have run before this one.
    const after = structuredOf((await alpha.callTool({ name: 'bash', arguments: { command: 'ls /workspace' } })) as CallToolResult);
    expect(after.stdout).not.toContain('beta-ran');
    expect(server().logs().some((line) => line.event === 'cancel' && line.outcome === 'aborted')).toBe(true);
  });

  it("a cancel sent ahead for another client's next JSON-RPC id waits under its own name: that call runs", async () => {
    const alpha = await connectHttpClient(server().mcpUrl, 'shared-ahead');
    const beta = await connectHttpClient(server().mcpUrl, 'shared-ahead');
    clients.push(alpha, beta);
    // alpha: initialize = id 0, this call = id 1, so its next call is id 2.
    expect(structuredOf((await alpha.callTool({ name: 'bash', arguments: { command: 'true' } })) as CallToolResult)).toMatchObject({ exit_code: 0 });
    // beta names id 2 before alpha sends it. The agent makes the cancel wait (the sandbox has not seen it)...
    await beta.notification({ method: 'notifications/cancelled', params: { requestId: 2, reason: 'hostile' } });
    const forwarded = () => server().logs().find((line) => line.event === 'cancel' && line.session_id === 'shared-ahead');
    await eventually(() => forwarded() !== undefined, 'the cancel to be forwarded');
    expect(forwarded()).toMatchObject({ where: 'sandbox', outcome: 'waiting' });
    // ...for beta's id 2, not alpha's: alpha's call 2 runs to its end.
    const result = (await alpha.callTool({ name: 'bash', arguments: { command: 'echo alpha-ran' } })) as CallToolResult;
    expect(structuredOf(result)).toMatchObject({ exit_code: 0, cancelled: false, stdout: 'alpha-ran' });
  });
});
