import { describe, expect, it } from 'vitest';
import { agentErrors, deferred, execResponse, handle, StrictBackend } from '../test/fakes.js';
import { useManagerFixture } from '../test/manager-fixture.js';
import { SessionError, SessionErrorCode } from './session-error.js';
import type { SandboxHandle } from './sandbox-backend.port.js';
import { SessionManager } from './session-manager.js';

const never = () => new AbortController().signal;
/** Lets queued promise callbacks run until `done` holds (fake clock: no real timers involved). */
async function eventuallyCalled(done: () => boolean): Promise<void> {
  for (let i = 0; i < 100 && !done(); i++) await new Promise((r) => setImmediate(r));
  expect(done()).toBe(true);
}
const request = { command: 'echo hi', timeout: 60 };

describe(SessionManager.name, () => {
  const f = useManagerFixture();

  describe('validation', () => {
    it.each(['', 'ABC', '-abc', 'abc_123', 'a'.repeat(64)])('rejects %j before any backend call', async (id) => {
      const strictBackend = new StrictBackend();
      const strict = new SessionManager({ backend: strictBackend, agent: f.agent, clock: f.clock });
      for (const call of [
        () => strict.execute(id, request, never()),
        () => strict.end(id, never()),
        () => strict.cancel(id, 'mcp-1'),
      ]) {
        await expect(call()).rejects.toMatchObject({
          code: SessionErrorCode.InvalidSessionId,
          message: `invalid session ID ${JSON.stringify(id)}: must match RFC 1123 DNS label format`,
        });
      }
      expect(strictBackend.calls).toEqual([]);
      expect(f.agent.calls).toEqual([]);
    });
  });

  describe('execute', () => {
    it('acquires, executes with the handle token, touches and caches', async () => {
      f.acquireReturns(handle('s1', { token: 'tok-s1', path: 'create' }));
      f.agent.on('exec', async () => execResponse({ stdout: 'hi' }));
      const result = await f.manager.execute('s1', request, never());
      expect(result).toEqual({ response: execResponse({ stdout: 'hi' }), sandboxRecreated: false, acquirePath: 'create' });
      expect(f.agent.callsOf('exec')[0]!.slice(0, 3)).toEqual(['http://127.0.0.1:41000', 'tok-s1', { ...request, idempotency_key: expect.stringMatching(/^[0-9a-f-]{36}$/) }]);
      expect(f.backend.callsOf('touch')).toHaveLength(1);
      const again = await f.manager.execute('s1', request, never());
      expect(again.acquirePath).toBe('cache');
      expect(f.backend.callsOf('acquire')).toHaveLength(1);
      expect(f.manager.cachedSessions).toBe(1);
    });

    it('re-resolves through the backend once the TTL has passed (hits do not extend it)', async () => {
      f.acquireReturns(handle('s1', { path: 'create' }), handle('s1', { path: 'discover' }));
      f.agent.on('exec', async () => execResponse());
      await f.manager.execute('s1', request, never());
      f.clock.advance(20_000);
      await f.manager.execute('s1', request, never());
      f.clock.advance(10_000);
      expect((await f.manager.execute('s1', request, never())).acquirePath).toBe('discover');
      expect(f.backend.callsOf('acquire')).toHaveLength(2);
    });

    it('runs ONE acquisition for 50 concurrent first calls of a session', async () => {
      const gate = deferred<SandboxHandle>();
      f.backend.on('acquire', () => gate.promise);
      f.agent.on('exec', async () => execResponse());
      const calls = Array.from({ length: 50 }, () => f.manager.execute('s1', request, never()));
      gate.resolve(handle('s1'));
      const results = await Promise.all(calls);
      expect(results).toHaveLength(50);
      expect(f.backend.callsOf('acquire')).toHaveLength(1);
      expect(f.agent.callsOf('exec')).toHaveLength(50);
    });

    it('reports sandboxRecreated to the calls that waited for the recreation only', async () => {
      f.acquireReturns(handle('s1', { recreated: true }));
      f.agent.on('exec', async () => execResponse());
      expect((await f.manager.execute('s1', request, never())).sandboxRecreated).toBe(true);
      expect((await f.manager.execute('s1', request, never())).sandboxRecreated).toBe(false);
    });

    it('passes on what the backend says was lost; a recreation that does not say lost everything', async () => {
      f.acquireReturns(handle('s1', { recreated: true, lost: { shellState: true, files: false } }), handle('s2', { recreated: true }));
      f.agent.on('exec', async () => execResponse());
      expect(await f.manager.execute('s1', request, never())).toMatchObject({ sandboxRecreated: true, sandboxLoss: { shellState: true, files: false } });
      expect(await f.manager.execute('s2', request, never())).toMatchObject({ sandboxRecreated: true, sandboxLoss: { shellState: true, files: true } });
    });

    it('brackets the command with beginCommand so idle reaping cannot end it mid-command', async () => {
      const events: string[] = [];
      f.backend.on('beginCommand', () => (events.push('begin'), () => events.push('end')));
      f.acquireReturns(handle('s1'));
      f.agent.on('exec', async () => (events.push('exec'), execResponse()));
      await f.manager.execute('s1', request, never());
      expect(events).toEqual(['begin', 'exec', 'end']);
    });

    it('passes backend SessionErrors through and wraps other failures', async () => {
      f.backend.on('acquire', async () => {
        throw new SessionError(SessionErrorCode.CapacityExhausted, 'maximum number of sessions (1) reached');
      });
      await expect(f.manager.execute('s1', request, never())).rejects.toMatchObject({ code: SessionErrorCode.CapacityExhausted });
      f.backend.on('acquire', async () => {
        throw new Error('spawn EACCES');
      });
      await expect(f.manager.execute('s1', request, never())).rejects.toMatchObject({
        code: SessionErrorCode.BackendFailure, message: 'resolve sandbox: spawn EACCES',
      });
    });

    it('maps a caller abort to Cancelled', async () => {
      f.acquireReturns(handle('s1'));
      const controller = new AbortController();
      f.agent.on('exec', async () => {
        controller.abort();
        throw agentErrors.aborted();
      });
      await expect(f.manager.execute('s1', request, controller.signal)).rejects.toMatchObject({ code: SessionErrorCode.Cancelled });
    });

    it('drops the cached handle when the backend reports the sandbox gone', async () => {
      let gone: ((sessionId: string) => void) | undefined;
      const reporting = Object.assign(f.backend, { onSandboxGone: (listener: (id: string) => void) => (gone = listener) });
      const watched = new SessionManager({ backend: reporting, agent: f.agent, clock: f.clock });
      f.acquireReturns(handle('s1'));
      f.agent.on('exec', async () => execResponse());
      await watched.execute('s1', request, never());
      expect(watched.cachedSessions).toBe(1);
      gone!('s1');
      expect(watched.cachedSessions).toBe(0);
    });

    it('refuses work after shutdown', async () => {
      f.backend.on('shutdown', async () => undefined);
      await f.manager.shutdown();
      await f.manager.shutdown();
      expect(f.backend.callsOf('shutdown')).toHaveLength(1);
      await expect(f.manager.execute('s1', request, never())).rejects.toMatchObject({ code: SessionErrorCode.ShuttingDown });
    });
  });

  describe('cancel (C-MCP-9)', () => {
    it('routes through f.backend.find on a cache miss and never creates a sandbox', async () => {
      f.backend.on('find', async () => handle('s1', { token: 'tok' }));
      f.agent.on('cancel', async () => ({ cancelled: true }));
      expect(await f.manager.cancel('s1', 'mcp-7')).toBe('stopped');
      expect(f.agent.callsOf('cancel')[0]!.slice(0, 3)).toEqual(['http://127.0.0.1:41000', 'tok', 'mcp-7']);
      expect(f.backend.callsOf('acquire')).toHaveLength(0);
    });

    it('says the cancel waits when the agent had not seen the command yet (it refuses it on arrival)', async () => {
      f.backend.on('find', async () => handle('s1', { token: 'tok' }));
      f.agent.on('cancel', async () => ({ cancelled: false, waiting: true }));
      expect(await f.manager.cancel('s1', 'mcp-7')).toBe('waiting');
    });

    it('asks the backend to wait for a sandbox that is still starting (the command follows once it serves)', async () => {
      f.backend.on('find', async () => handle('s1', { token: 'tok' }));
      f.agent.on('cancel', async () => ({ cancelled: true }));
      await f.manager.cancel('s1', 'mcp-7');
      expect(f.backend.callsOf('find')[0]![2]).toEqual({ waitForStart: true });
    });

    it('a burst of cancels for one session shares one discovery (a wait for a starting pod holds a watch)', async () => {
      const found = deferred<SandboxHandle | undefined>();
      f.backend.on('find', () => found.promise);
      f.agent.on('cancel', async () => ({ cancelled: false, waiting: true }));
      const outcomes = [f.manager.cancel('s1', 'mcp-1'), f.manager.cancel('s1', 'mcp-2'), f.manager.cancel('s1', 'mcp-3')];
      await eventuallyCalled(() => f.backend.callsOf('find').length === 1);
      found.resolve(handle('s1', { token: 'tok' }));
      expect(await Promise.all(outcomes)).toEqual(['waiting', 'waiting', 'waiting']);
      expect(f.backend.callsOf('find')).toHaveLength(1);
      expect(f.agent.callsOf('cancel').map((call) => call[2]).sort()).toEqual(['mcp-1', 'mcp-2', 'mcp-3']);
    });

    it('retries an agent that is not assigned yet (just claimed by another replica) until it is, within the signal', async () => {
      f.backend.on('find', async () => handle('s1', { token: 'tok' }));
      let n = 0;
      f.agent.on('cancel', async () => {
        if (n++ < 2) throw agentErrors.notAssigned('http://127.0.0.1:41000/cancel');
        return { cancelled: true };
      });
      const outcome = f.manager.cancel('s1', 'mcp-7');
      await eventuallyCalled(() => f.agent.callsOf('cancel').length === 1);
      f.clock.advance(50);
      await eventuallyCalled(() => f.agent.callsOf('cancel').length === 2);
      f.clock.advance(50);
      expect(await outcome).toBe('stopped');
      expect(f.agent.callsOf('cancel')).toHaveLength(3);
    });

    it('gives up on an agent that stays unassigned when the signal ends, with the agent error', async () => {
      f.backend.on('find', async () => handle('s1', { token: 'tok' }));
      f.agent.on('cancel', async () => {
        throw agentErrors.notAssigned('http://127.0.0.1:41000/cancel');
      });
      const stop = new AbortController();
      const outcome = f.manager.cancel('s1', 'mcp-7', stop.signal);
      await eventuallyCalled(() => f.agent.callsOf('cancel').length === 1);
      stop.abort();
      await expect(outcome).rejects.toBeInstanceOf(SessionError);
    });

    it('returns none when the session has no sandbox', async () => {
      f.backend.on('find', async () => undefined);
      expect(await f.manager.cancel('s1', 'mcp-7')).toBe('none');
      expect(f.agent.calls).toEqual([]);
    });

    it('uses the cached handle when this replica has one', async () => {
      f.acquireReturns(handle('s1'));
      f.agent.on('exec', async () => execResponse()).on('cancel', async () => ({ cancelled: false }));
      await f.manager.execute('s1', request, never());
      expect(await f.manager.cancel('s1', 'mcp-7')).toBe('none');
      expect(f.backend.callsOf('find')).toHaveLength(0);
    });
  });

  describe('peek (C-MCP-10 progress)', () => {
    it('asks the sandbox found without creating one, and returns only a running answer', async () => {
      f.backend.on('find', async () => handle('s1', { token: 'tok' }));
      let running = true;
      f.agent.on('output', async () => (running ? { running: true, stdout: 'step 3', stderr: '' } : { running: false }));
      expect(await f.manager.peek('s1', 'mcp-7', never())).toEqual({ running: true, stdout: 'step 3', stderr: '' });
      expect(f.agent.callsOf('output')[0]!.slice(0, 3)).toEqual(['http://127.0.0.1:41000', 'tok', 'mcp-7']);
      running = false;
      expect(await f.manager.peek('s1', 'mcp-7', never())).toBeUndefined();
      expect(f.backend.callsOf('acquire')).toHaveLength(0);
    });

    it('never throws: no sandbox, a failed lookup and a failed agent call are all "unknown"', async () => {
      let n = 0;
      f.backend.on('find', async () => {
        n += 1;
        if (n === 1) return undefined;
        if (n === 2) throw new Error('list pods: 500');
        return handle('s1');
      });
      f.agent.on('output', async () => {
        throw agentErrors.refused();
      });
      for (let i = 0; i < 3; i++) expect(await f.manager.peek('s1', 'mcp-7', never())).toBeUndefined();
      expect(f.agent.callsOf('output')).toHaveLength(1);
    });
  });

  describe('end (C-HTTP-1)', () => {
    it('clears the cache and ends the sandbox; idempotent', async () => {
      f.acquireReturns(handle('s1'));
      f.agent.on('exec', async () => execResponse());
      f.backend.on('end', async () => undefined);
      await f.manager.execute('s1', request, never());
      await f.manager.end('s1', never());
      await f.manager.end('s1', never());
      expect(f.manager.cachedSessions).toBe(0);
      expect(f.backend.callsOf('end').map((c) => c[0])).toEqual(['s1', 's1']);
    });

    it('wraps a backend failure', async () => {
      f.backend.on('end', async () => {
        throw new Error('kill EPERM');
      });
      await expect(f.manager.end('s1', never())).rejects.toMatchObject({
        code: SessionErrorCode.BackendFailure, message: 'end session: kill EPERM',
      });
    });
  });

  it('checkHealth delegates to the backend', async () => {
    f.backend.on('checkHealth', async () => {
      throw new SessionError(SessionErrorCode.SandboxUnavailable, 'bash cannot start');
    });
    await expect(f.manager.checkHealth(never())).rejects.toMatchObject({ message: 'bash cannot start' });
  });
});
