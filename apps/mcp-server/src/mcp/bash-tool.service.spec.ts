import type { ExecRequest } from '@cli-mcp/agent-client';
import { SessionError, SessionErrorCode, type SessionExecResult } from '@cli-mcp/session';
import type { CallToolResult, ProgressNotification } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { execResult, memoryLogger, StrictSessionService, testConfig } from '../../test/fakes.js';
import type { ServerConfig } from '../config/server-config.js';
import { BashToolService, MAX_COMMAND_BYTES, type BashCallContext } from './bash-tool.service.js';
import { ProtocolError } from './protocol-error.js';
import { RunningCalls } from './running-calls.js';

const text = (result: CallToolResult): string => (result.content[0] as { text: string }).text;

function setup(config: ServerConfig = testConfig()) {
  const sessions = new StrictSessionService();
  const running = new RunningCalls();
  const log = memoryLogger();
  const sut = new BashToolService(sessions, config, log.logger, running);
  return { sut, sessions, running, log };
}

function context(overrides: Partial<BashCallContext> = {}): BashCallContext {
  return {
    sessionId: 'inv-abc',
    requestId: 1,
    progressToken: undefined,
    signal: new AbortController().signal,
    sendNotification: async () => undefined,
    ...overrides,
  };
}

let current: ReturnType<typeof setup> | undefined;
const fresh = (config?: ServerConfig): ReturnType<typeof setup> => (current = setup(config));

afterEach(() => {
  current?.sessions.assertNoUnexpectedCalls();
  current = undefined;
  vi.useRealTimers();
});

describe(BashToolService.name, () => {
  describe('Go TestBashToolHandle inventory', () => {
    it.each([
      ['no session (stdio without id / no header)', undefined],
      ['an empty X-Session-ID header', ''],
    ])('%s → "missing X-Session-ID header", executor not called', async (_, sessionId) => {
      const { sut, sessions } = fresh();
      const result = await sut.call({ command: 'ls' }, context({ sessionId }));
      expect(result).toEqual({ content: [{ type: 'text', text: 'missing X-Session-ID header' }], isError: true });
      expect(sessions.calls).toEqual([]);
    });

    it('empty command → "command is required", executor not called', async () => {
      const { sut, sessions } = fresh();
      const result = await sut.call({ command: '' }, context());
      expect(result).toEqual({ content: [{ type: 'text', text: 'command is required' }], isError: true });
      expect(sessions.calls).toEqual([]);
    });

    it('checks the header before the command, as Go did', async () => {
      const { sut } = fresh();
      expect(text(await sut.call({ command: '' }, context({ sessionId: undefined })))).toBe('missing X-Session-ID header');
    });

    it('passes whitespace-only commands through (only "" is empty)', async () => {
      const { sut, sessions } = fresh();
      sessions.onExecute(async () => execResult());
      expect((await sut.call({ command: '   ' }, context())).isError).toBeUndefined();
    });

    it('exit 0 → result with output; session, command and timeout forwarded unchanged', async () => {
      const { sut, sessions } = fresh();
      sessions.onExecute(async () => execResult({ stdout: 'hello', duration_ms: 12 }));
      const result = await sut.call({ command: 'echo hello', timeout: 30 }, context({ sessionId: 'inv-abc', requestId: 42 }));
      expect(result.isError).toBeUndefined();
      expect(text(result)).toBe('hello\n[exit 0 · 12 ms]');
      expect(result.structuredContent).toMatchObject({ stdout: 'hello', stderr: '', exit_code: 0, duration_ms: 12 });
      const [call] = sessions.callsOf('execute');
      expect(call?.args[0]).toBe('inv-abc');
      expect(call?.args[1]).toEqual({ command: 'echo hello', timeout: 30, request_id: 'mcp-42' } satisfies ExecRequest);
    });

    it('tty: true → the agent runs that command in terminal mode (C-MCP-14)', async () => {
      const { sut, sessions } = fresh();
      sessions.onExecute(async () => execResult({ stdout: 'tty' }));
      await sut.call({ command: 'tty', tty: true }, context({ requestId: 43 }));
      expect(sessions.callsOf('execute')[0]?.args[1]).toMatchObject({ command: 'tty', tty: true });
    });

    it('exit 1 → isError with the full output and structured content', async () => {
      const { sut, sessions } = fresh();
      sessions.onExecute(async () => execResult({ stdout: 'out', stderr: 'err', exit_code: 1 }));
      const result = await sut.call({ command: 'false' }, context());
      expect(result.isError).toBe(true);
      expect(text(result)).toBe('out\n--- stderr ---\nerr\n[exit 1 · 5 ms]');
      expect(result.structuredContent).toMatchObject({ stdout: 'out', stderr: 'err', exit_code: 1 });
    });

    it('executor error → "sandbox exec failed: <cause>"', async () => {
      const { sut, sessions } = fresh();
      sessions.onExecute(async () => {
        throw new SessionError(SessionErrorCode.AgentFailure, 'agent request: execute http://127.0.0.1:1/exec: connection refused');
      });
      const result = await sut.call({ command: 'ls' }, context());
      expect(result).toEqual({
        content: [{ type: 'text', text: 'sandbox exec failed: agent request: execute http://127.0.0.1:1/exec: connection refused' }],
        isError: true,
      });
    });

    it('session ID forwarded unchanged (no normalisation)', async () => {
      const { sut, sessions } = fresh();
      sessions.onExecute(async () => execResult());
      await sut.call({ command: 'ls' }, context({ sessionId: '0-a-9' }));
      expect(sessions.callsOf('execute')[0]?.args[0]).toBe('0-a-9');
    });
  });

  describe('timeout (C-MCP-3)', () => {
    // The rule itself is clampTimeout's (libs/agent-client timeout.spec.ts); here: the service applies it.
    it.each([
      [undefined, 60],
      [120, 120],
      [500, 300],
    ])('timeout %s is sent as %s', async (timeout, expected) => {
      const { sut, sessions } = fresh();
      sessions.onExecute(async () => execResult());
      await sut.call({ command: 'ls', timeout }, context());
      expect((sessions.callsOf('execute')[0]?.args[1] as ExecRequest).timeout).toBe(expected);
    });

    it('asks the agent to yield after --yield-after, and returns a running command as a normal result (C-MCP-11)', async () => {
      const config = testConfig();
      const { sut, sessions } = fresh({ ...config, tool: { ...config.tool, yieldAfterMs: 50_000 } });
      sessions.onExecute(async () => execResult({
        stdout: 'so far', exit_code: -1, duration_ms: 50_010, running: true, yield_mode: 'job', job: '%1', job_pid: 4242,
        stdout_file: '/workspace/.cli-mcp/out/3.stdout', stderr_file: '/workspace/.cli-mcp/out/3.stderr', timeout_seconds: 300,
      }));
      const result = await sut.call({ command: 'sleep 100; echo done', timeout: 300 }, context());
      expect((sessions.callsOf('execute')[0]?.args[1] as ExecRequest).yield_after).toBe(50);
      expect(result.isError).toBeUndefined();
      expect(text(result)).toContain('background job %1 (pid 4242)');
      expect(result.structuredContent).toMatchObject({ running: true, yield_mode: 'job', job: '%1', job_pid: 4242, exit_code: -1 });
    });

    it('sends no yield point when --yield-after is 0 or not below the timeout', async () => {
      const config = testConfig();
      for (const [yieldAfterMs, timeout] of [[0, 60], [30_000, 30], [60_000, 20]] as const) {
        const { sut, sessions } = fresh({ ...config, tool: { ...config.tool, yieldAfterMs } });
        sessions.onExecute(async () => execResult());
        await sut.call({ command: 'true', timeout }, context());
        expect(sessions.callsOf('execute')[0]?.args[1]).not.toHaveProperty('yield_after');
      }
    });

    it('uses the configured default and maximum, and names the effective timeout in the notice', async () => {
      const config = testConfig();
      const { sut, sessions } = fresh({ ...config, tool: { ...config.tool, defaultTimeoutSeconds: 10, maxTimeoutSeconds: 20 } });
      sessions.onExecute(async () => execResult({ exit_code: 137, timed_out: true, stderr: 'command timed out' }));
      const result = await sut.call({ command: 'sleep 99', timeout: 99 }, context());
      expect((sessions.callsOf('execute')[0]?.args[1] as ExecRequest).timeout).toBe(20);
      expect(text(result)).toContain('[command timed out after 20 s]');
      expect(result.isError).toBe(true);
    });
  });

  describe('arguments and session id', () => {
    it('throws JSON-RPC invalid params for wrong types before any tool error', async () => {
      const { sut } = fresh();
      await expect(sut.call({ command: 1 }, context({ sessionId: undefined }))).rejects.toBeInstanceOf(ProtocolError);
      await expect(sut.call({ command: 'ls', extra: true }, context())).rejects.toThrow('unknown argument "extra"');
    });

    it('refuses an invalid session id with a tool error containing "invalid session ID", without a session call', async () => {
      const { sut, sessions } = fresh();
      const result = await sut.call({ command: 'ls' }, context({ sessionId: 'INVALID_ID!' }));
      expect(result.isError).toBe(true);
      expect(text(result)).toContain('invalid session ID "INVALID_ID!"');
      expect(sessions.calls).toEqual([]);
    });

    it('refuses a command over 1 MiB with both sizes, without a session call', async () => {
      const { sut, sessions } = fresh();
      const command = 'x'.repeat(MAX_COMMAND_BYTES + 1);
      const result = await sut.call({ command }, context());
      expect(text(result)).toBe(`command is too large (${MAX_COMMAND_BYTES + 1} bytes; the limit is 1048576)`);
      expect(sessions.calls).toEqual([]);
    });

    it('refuses a command under 1 MiB whose JSON encoding would not fit the agent limit', async () => {
      const { sut } = fresh();
      const command = '"'.repeat(600_000); // each quote becomes \" in JSON
      expect(text(await sut.call({ command }, context()))).toMatch(/^command is too large \(600000 bytes, about \d+ bytes as JSON; the limit is 1048576 bytes of JSON\)$/);
    });

    it('accepts a command of exactly the limit minus the JSON envelope', async () => {
      const { sut, sessions } = fresh();
      sessions.onExecute(async () => execResult());
      const result = await sut.call({ command: 'x'.repeat(MAX_COMMAND_BYTES - 1024) }, context());
      expect(result.isError).toBeUndefined();
    });
  });

  describe('cancellation (C-MCP-9)', () => {
    it('passes a signal that the transport closing aborts', async () => {
      const { sut, sessions } = fresh();
      const transport = new AbortController();
      let seen: AbortSignal | undefined;
      sessions.onExecute(
        (_id, _request, signal) =>
          new Promise<SessionExecResult>((_resolve, reject) => {
            seen = signal;
            signal.addEventListener('abort', () => reject(new SessionError(SessionErrorCode.Cancelled, 'aborted')));
          }),
      );
      const pending = sut.call({ command: 'sleep 100' }, context({ signal: transport.signal }));
      await vi.waitFor(() => expect(seen).toBeDefined());
      transport.abort();
      expect(text(await pending)).toBe('sandbox exec failed: the request was cancelled');
    });

    it('registers the running call under session and its agent request id so a cancel can abort it, then releases it', async () => {
      const { sut, sessions, running } = fresh();
      sessions.onExecute(
        (_id, _request, signal) =>
          new Promise<SessionExecResult>((resolve) => {
            signal.addEventListener('abort', () => resolve(execResult({ exit_code: 130, cancelled: true })));
          }),
      );
      const pending = sut.call({ command: 'sleep 100' }, context({ requestId: 'r-7' }));
      await vi.waitFor(() => expect(running.size).toBe(1));
      expect(running.abort('inv-abc', 'mcp-r-7', 'client cancelled')).toBe('aborted');
      const result = await pending;
      expect(text(result)).toContain('[command was cancelled]');
      expect(running.size).toBe(0);
    });
  });

  describe('progress (C-MCP-10)', () => {
    it('sends progress while the command runs and stops when it finishes', async () => {
      vi.useFakeTimers();
      const { sut, sessions } = fresh();
      let finish: (result: SessionExecResult) => void = () => undefined;
      sessions.onExecute(() => new Promise((resolve) => (finish = resolve)));
      let peeks = 0;
      sessions.onPeek(async () => (++peeks === 1 ? { running: true, stdout: 'step 1\nstep 2\n', stderr: '' } : undefined));
      const sent: ProgressNotification[] = [];
      const pending = sut.call(
        { command: 'sleep 12' },
        context({ progressToken: 'p-1', sendNotification: async (notification) => void sent.push(notification) }),
      );
      await vi.advanceTimersByTimeAsync(12_000);
      finish(execResult({ duration_ms: 12_000 }));
      await pending;
      await vi.advanceTimersByTimeAsync(20_000);
      expect(sent.map((notification) => notification.params)).toEqual([
        { progressToken: 'p-1', progress: 5, message: 'running for 5 s; stdout: step 2' },
        { progressToken: 'p-1', progress: 10, message: 'running for 10 s' },
      ]);
      // The peek names the session and the command (`mcp-<JSON-RPC id>`), like a cancel.
      expect(sessions.calls.filter((c) => c.method === 'peek').map((c) => c.args)).toEqual([['inv-abc', 'mcp-1'], ['inv-abc', 'mcp-1']]);
    });

    it('sends no progress without a token', async () => {
      vi.useFakeTimers();
      const { sut, sessions } = fresh();
      let finish: (result: SessionExecResult) => void = () => undefined;
      sessions.onExecute(() => new Promise((resolve) => (finish = resolve)));
      const send = vi.fn(async () => undefined);
      const pending = sut.call({ command: 'sleep 12' }, context({ sendNotification: send }));
      await vi.advanceTimersByTimeAsync(12_000);
      finish(execResult());
      await pending;
      expect(send).not.toHaveBeenCalled();
    });
  });

  describe('logging', () => {
    it('logs one structured line per call without command text or output', async () => {
      const { sut, sessions, log } = fresh();
      sessions.onExecute(async () => execResult({ stdout: 'TOP-SECRET-OUTPUT', exit_code: 3, duration_ms: 9 }));
      await sut.call({ command: 'echo TOP-SECRET-COMMAND' }, context({ sessionId: 's-1' }));
      const lines = log.lines().filter((line) => line.event === 'tool_call');
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatchObject({ session_id: 's-1', outcome: 'nonzero_exit', exit_code: 3, exec_ms: 9, timeout_s: 60 });
      expect(typeof lines[0]?.duration_ms).toBe('number');
      expect(log.text()).not.toContain('TOP-SECRET');
    });

    it('logs rejections and failures with a bounded reason', async () => {
      const { sut, sessions, log } = fresh();
      sessions.onExecute(async () => {
        throw new SessionError(SessionErrorCode.CapacityExhausted, 'too many sessions (limit 4)');
      });
      await sut.call({ command: '' }, context());
      await sut.call({ command: 'ls' }, context());
      expect(log.lines().map((line) => [line.outcome, line.reason])).toEqual([
        ['rejected', 'empty_command'],
        ['capacity_exhausted', undefined],
      ]);
    });
  });
});
