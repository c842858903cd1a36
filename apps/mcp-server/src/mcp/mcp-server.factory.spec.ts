import type { SessionExecResult } from '@cli-mcp/session';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { execResult, testConfig } from '../../test/fakes.js';
import { testSurface } from '../../test/surface.js';
import { agentRequestId } from './agent-request-id.js';
import { McpServerFactory, type McpRequestContext } from './mcp-server.factory.js';

const cleanups: Array<() => Promise<void>> = [];

function setup(config = testConfig()) {
  const { surface, sessions, running, metrics, logger } = testSurface(config);
  const sut = new McpServerFactory(surface, logger);
  const connect = async (context: McpRequestContext): Promise<Client> => {
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    const server = sut.create(context);
    await sut.connect(server, serverSide, context);
    const client = new Client({ name: 'spec', version: '1' });
    await client.connect(clientSide);
    cleanups.push(async () => {
      await client.close();
      await server.close();
    });
    return client;
  };
  return { sut, sessions, running, metrics, connect };
}

afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

async function rpcError(promise: Promise<unknown>): Promise<McpError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  if (!(error instanceof McpError)) throw new Error(`expected an McpError, got ${String(error)}`);
  return error;
}

describe(McpServerFactory.name, () => {
  it('announces cli-mcp-server, its version, tools+logging and the instructions, touching no session (C-MCP-1, C-MCP-7)', async () => {
    const { sessions, connect } = setup();
    const client = await connect({ sessionId: undefined });
    expect(client.getServerVersion()).toEqual({ name: 'cli-mcp-server', version: '0.1.0-test' });
    expect(client.getServerCapabilities()).toEqual({ tools: {}, logging: {} });
    expect(client.getInstructions()).toBe('Test instructions.');
    await client.ping();
    await client.listTools();
    expect(sessions.calls).toEqual([]);
  });

  it('lists exactly one tool, bash, with the contract annotations and schemas (C-MCP-2, Go TestRegisterWith)', async () => {
    const { connect } = setup();
    const { tools } = await (await connect({ sessionId: 's-1' })).listTools();
    expect(tools).toHaveLength(1);
    const [bash] = tools;
    expect(bash?.name).toBe('bash');
    expect(bash?.description).toMatch(/persistent sandbox bash session.*pipes, redirects, chaining, and standard Unix tools/);
    expect(bash?.description).toContain('/workspace');
    expect(bash?.annotations).toMatchObject({ readOnlyHint: false, openWorldHint: true });
    expect(bash?.inputSchema).toMatchObject({
      type: 'object',
      required: ['command'],
      additionalProperties: false,
      properties: { command: { type: 'string' }, timeout: { type: ['integer', 'null'] }, tty: { type: ['boolean', 'null'] } },
    });
    expect(bash?.outputSchema?.required).toEqual(['stdout', 'stderr', 'exit_code', 'duration_ms']);
  });

  it('answers an unknown tool with a JSON-RPC invalid-params error carrying the exact message', async () => {
    const { sessions, connect } = setup();
    const error = await rpcError((await connect({ sessionId: 's-1' })).callTool({ name: 'python', arguments: {} }));
    expect(error.code).toBe(ErrorCode.InvalidParams);
    expect(error.message).toBe('MCP error -32602: unknown tool "python"'); // the client adds the prefix
    expect(sessions.calls).toEqual([]);
  });

  it('answers wrong argument types with a JSON-RPC error naming the field', async () => {
    const { connect } = setup();
    const client = await connect({ sessionId: 's-1' });
    const error = await rpcError(client.callTool({ name: 'bash', arguments: { command: 'ls', timeout: 'soon' } }));
    expect(error.code).toBe(ErrorCode.InvalidParams);
    expect(error.message).toContain('argument "timeout" must be an integer');
  });

  it('runs bash with the context session and returns structured content the client validates', async () => {
    const { sessions, connect } = setup();
    sessions.onExecute(async () => execResult({ stdout: '/workspace' }));
    const result = await (await connect({ sessionId: 's-1' })).callTool({ name: 'bash', arguments: { command: 'pwd' } });
    expect(result.content).toEqual([{ type: 'text', text: '/workspace\n[exit 0 · 5 ms]' }]);
    expect(result.structuredContent).toMatchObject({ stdout: '/workspace', exit_code: 0 });
    expect(sessions.callsOf('execute')[0]?.args[0]).toBe('s-1');
  });

  it('aborts a call running in this process on notifications/cancelled (SDK signal abort)', async () => {
    const { sessions, connect, running } = setup();
    let aborted = false;
    sessions.onExecute(
      (_id, _request, signal) =>
        new Promise<SessionExecResult>((resolve) => {
          signal.addEventListener('abort', () => {
            aborted = true;
            resolve(execResult({ exit_code: 130, cancelled: true }));
          });
        }),
    );
    const client = await connect({ sessionId: 's-1' });
    const controller = new AbortController();
    const call = client.callTool({ name: 'bash', arguments: { command: 'sleep 100' } }, undefined, { signal: controller.signal });
    await vi.waitFor(() => expect(running.size).toBe(1));
    controller.abort('user pressed stop');
    await expect(call).rejects.toThrow();
    await vi.waitFor(() => expect(aborted).toBe(true));
    await vi.waitFor(() => expect(running.size).toBe(0));
    expect(sessions.callsOf('cancel')).toEqual([]);
  });

  it('forwards a cancel for a call not running here to the session sandbox as mcp-<id> (another replica)', async () => {
    const { sessions, connect } = setup();
    sessions.onCancel(async () => 'stopped');
    const client = await connect({ sessionId: 's-1' });
    await client.notification({ method: 'notifications/cancelled', params: { requestId: 99, reason: 'timeout' } });
    await vi.waitFor(() => expect(sessions.callsOf('cancel')).toHaveLength(1));
    expect(sessions.callsOf('cancel')[0]?.args).toEqual(['s-1', 'mcp-99']);
  });

  it('names the issuing client in the forwarded cancel when the server gave it a client id (C-MCP-9)', async () => {
    const { sessions, connect } = setup();
    sessions.onCancel(async () => 'stopped');
    const client = await connect({ sessionId: 's-1', clientId: 'client-b' });
    await client.notification({ method: 'notifications/cancelled', params: { requestId: 99 } });
    await vi.waitFor(() => expect(sessions.callsOf('cancel')).toHaveLength(1));
    expect(sessions.callsOf('cancel')[0]?.args).toEqual(['s-1', agentRequestId(99, 'client-b')]);
    expect(agentRequestId(99, 'client-b')).not.toBe('mcp-99');
  });

  it('ignores cancels without a valid session (nothing to route to)', async () => {
    const { sessions, connect } = setup();
    const client = await connect({ sessionId: 'Not Valid' });
    await client.notification({ method: 'notifications/cancelled', params: { requestId: 1 } });
    await client.ping(); // the notification has been handled once the ping's answer arrives
    expect(sessions.calls).toEqual([]);
  });

  describe('eager acquisition (C-MCP-13)', () => {
    it('initialize, tools/list and ping of a session start its sandbox; tools/call and notifications do not', async () => {
      const { sessions, connect } = setup({ ...testConfig(), eagerAcquire: true });
      sessions.onPrepare(async () => undefined).onExecute(async () => execResult());
      const client = await connect({ sessionId: 's-1' }); // initialize
      await client.listTools();
      await client.ping();
      await client.callTool({ name: 'bash', arguments: { command: 'true' } });
      expect(sessions.callsOf('prepare').map((call) => call.args[0])).toEqual(['s-1', 's-1', 's-1']);
    });

    it('never allocates without a valid session, nor when --eager-acquire=false', async () => {
      for (const [config, sessionId] of [[{ ...testConfig(), eagerAcquire: true }, undefined], [{ ...testConfig(), eagerAcquire: true }, 'Not Valid'], [testConfig(), 's-1']] as const) {
        const { sessions, connect } = setup(config);
        const client = await connect({ sessionId });
        await client.listTools();
        expect(sessions.calls).toEqual([]);
      }
    });

    it('a failing eager acquisition is only logged: the request answers and the command runs', async () => {
      const { sessions, connect } = setup({ ...testConfig(), eagerAcquire: true });
      sessions.onPrepare(async () => {
        throw new Error('quota exceeded');
      }).onExecute(async () => execResult({ stdout: 'ran' }));
      const client = await connect({ sessionId: 's-1' });
      expect((await client.listTools()).tools).toHaveLength(1);
      const result = await client.callTool({ name: 'bash', arguments: { command: 'echo ran' } });
      expect(result.isError).toBeFalsy();
      expect(sessions.callsOf('execute')).toHaveLength(1);
    });
  });

  it('counts calls in mcp_calls_total with bounded labels; isError results count as failures (Go §11)', async () => {
    const { sessions, connect, metrics } = setup();
    sessions.onExecute(async () => execResult({ exit_code: 1 }));
    const client = await connect({ sessionId: 's-1' });
    await client.listTools();
    await client.callTool({ name: 'bash', arguments: { command: 'false' } });
    await rpcError(client.callTool({ name: 'x'.repeat(50), arguments: {} }));
    const text = await metrics.render();
    const line = (labels: string): string | undefined => text.split('\n').find((l) => l.startsWith(`mcp_calls_total{${labels}}`));
    expect(line('server="cli-mcp-server",method="initialize",name="",success="true"')).toMatch(/ 1$/);
    expect(line('server="cli-mcp-server",method="notifications/initialized",name="",success="true"')).toMatch(/ 1$/);
    expect(line('server="cli-mcp-server",method="tools/list",name="",success="true"')).toMatch(/ 1$/);
    expect(line('server="cli-mcp-server",method="tools/call",name="bash",success="false"')).toMatch(/ 1$/);
    expect(line('server="cli-mcp-server",method="tools/call",name="unknown",success="false"')).toMatch(/ 1$/);
    expect(text).toContain('mcp_call_duration_seconds_bucket{le="0.005",server="cli-mcp-server",method="tools/list"');
    expect(text).toContain('process_cpu_user_seconds_total');
  });
});
