import { Registry } from 'prom-client';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { agentErrors, deferred, execResponse, FakeClock, handle, StrictAgent, StrictBackend } from '../test/fakes.js';
import type { SandboxHandle } from './sandbox-backend.port.js';
import { SessionError, SessionErrorCode } from './session-error.js';
import { SessionManager } from './session-manager.js';
import { SESSION_METRIC_NAMES, SessionMetrics } from './session-metrics.js';

const never = () => new AbortController().signal;
const request = { command: 'echo hi', timeout: 60 };

describe(SessionManager.name, () => {
  let backend: StrictBackend;
  let agent: StrictAgent;
  let clock: FakeClock;
  let registry: Registry;
  let manager: SessionManager;

  beforeEach(() => {
    backend = new StrictBackend();
    agent = new StrictAgent();
    clock = new FakeClock();
    registry = new Registry();
    manager = new SessionManager({ backend, agent, clock, metrics: new SessionMetrics(registry), cacheTtlMs: 30_000 });
    backend.on('touch', () => undefined).on('beginCommand', () => () => undefined);
  });

  afterEach(() => {
    expect(backend.unexpected).toEqual([]);
    expect(agent.unexpected).toEqual([]);
  });

  const acquireReturns = (...handles: SandboxHandle[]) => {
    let i = 0;
    backend.on('acquire', async () => handles[Math.min(i++, handles.length - 1)]!);
  };

  describe('validation', () => {
    it.each(['', 'ABC', '-abc', 'abc_123', 'a'.repeat(64)])('rejects %j before any backend call', async (id) => {
      const strictBackend = new StrictBackend();
      const strict = new SessionManager({ backend: strictBackend, agent, clock });
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
      expect(agent.calls).toEqual([]);
    });
  });

  describe('execute', () => {
    it('acquires, executes with the handle token, touches and caches', async () => {
      acquireReturns(handle('s1', { token: 'tok-s1', path: 'create' }));
      agent.on('exec', async () => execResponse({ stdout: 'hi' }));
      const result = await manager.execute('s1', request, never());
      expect(result).toEqual({ response: execResponse({ stdout: 'hi' }), sandboxRecreated: false, acquirePath: 'create' });
      expect(agent.callsOf('exec')[0]!.slice(0, 3)).toEqual(['http://127.0.0.1:41000', 'tok-s1', request]);
      expect(backend.callsOf('touch')).toHaveLength(1);
      const again = await manager.execute('s1', request, never());
      expect(again.acquirePath).toBe('cache');
      expect(backend.callsOf('acquire')).toHaveLength(1);
      expect(manager.cachedSessions).toBe(1);
    });

    it('re-resolves through the backend once the TTL has passed (hits do not extend it)', async () => {
      acquireReturns(handle('s1', { path: 'create' }), handle('s1', { path: 'discover' }));
      agent.on('exec', async () => execResponse());
      await manager.execute('s1', request, never());
      clock.advance(20_000);
      await manager.execute('s1', request, never());
      clock.advance(10_000);
      expect((await manager.execute('s1', request, never())).acquirePath).toBe('discover');
      expect(backend.callsOf('acquire')).toHaveLength(2);
    });

    it('runs ONE acquisition for 50 concurrent first calls of a session', async () => {
      const gate = deferred<SandboxHandle>();
      backend.on('acquire', () => gate.promise);
      agent.on('exec', async () => execResponse());
      const calls = Array.from({ length: 50 }, () => manager.execute('s1', request, never()));
      gate.resolve(handle('s1'));
      const results = await Promise.all(calls);
      expect(results).toHaveLength(50);
      expect(backend.callsOf('acquire')).toHaveLength(1);
      expect(agent.callsOf('exec')).toHaveLength(50);
    });

    it('reports sandboxRecreated to the calls that waited for the recreation only', async () => {
      acquireReturns(handle('s1', { recreated: true }));
      agent.on('exec', async () => execResponse());
      expect((await manager.execute('s1', request, never())).sandboxRecreated).toBe(true);
      expect((await manager.execute('s1', request, never())).sandboxRecreated).toBe(false);
    });

    it('passes on what the backend says was lost; a recreation that does not say lost everything', async () => {
      acquireReturns(handle('s1', { recreated: true, lost: { shellState: true, files: false } }), handle('s2', { recreated: true }));
      agent.on('exec', async () => execResponse());
      expect(await manager.execute('s1', request, never())).toMatchObject({ sandboxRecreated: true, sandboxLoss: { shellState: true, files: false } });
      expect(await manager.execute('s2', request, never())).toMatchObject({ sandboxRecreated: true, sandboxLoss: { shellState: true, files: true } });
    });

    it('brackets the command with beginCommand so idle reaping cannot end it mid-command', async () => {
      const events: string[] = [];
      backend.on('beginCommand', () => (events.push('begin'), () => events.push('end')));
      acquireReturns(handle('s1'));
      agent.on('exec', async () => (events.push('exec'), execResponse()));
      await manager.execute('s1', request, never());
      expect(events).toEqual(['begin', 'exec', 'end']);
    });

    it('passes backend SessionErrors through and wraps other failures', async () => {
      backend.on('acquire', async () => {
        throw new SessionError(SessionErrorCode.CapacityExhausted, 'maximum number of sessions (1) reached');
      });
      await expect(manager.execute('s1', request, never())).rejects.toMatchObject({ code: SessionErrorCode.CapacityExhausted });
      backend.on('acquire', async () => {
        throw new Error('spawn EACCES');
      });
      await expect(manager.execute('s1', request, never())).rejects.toMatchObject({
        code: SessionErrorCode.BackendFailure, message: 'resolve sandbox: spawn EACCES',
      });
    });

    it('maps a caller abort to Cancelled', async () => {
      acquireReturns(handle('s1'));
      const controller = new AbortController();
      agent.on('exec', async () => {
        controller.abort();
        throw agentErrors.aborted();
      });
      await expect(manager.execute('s1', request, controller.signal)).rejects.toMatchObject({ code: SessionErrorCode.Cancelled });
    });

    it('drops the cached handle when the backend reports the sandbox gone', async () => {
      let gone: ((sessionId: string) => void) | undefined;
      const reporting = Object.assign(backend, { onSandboxGone: (listener: (id: string) => void) => (gone = listener) });
      const watched = new SessionManager({ backend: reporting, agent, clock });
      acquireReturns(handle('s1'));
      agent.on('exec', async () => execResponse());
      await watched.execute('s1', request, never());
      expect(watched.cachedSessions).toBe(1);
      gone!('s1');
      expect(watched.cachedSessions).toBe(0);
    });

    it('refuses work after shutdown', async () => {
      backend.on('shutdown', async () => undefined);
      await manager.shutdown();
      await manager.shutdown();
      expect(backend.callsOf('shutdown')).toHaveLength(1);
      await expect(manager.execute('s1', request, never())).rejects.toMatchObject({ code: SessionErrorCode.ShuttingDown });
    });
  });

  describe('recovery (C-K8S-7)', () => {
    it('invalidates the cache on a network error after delivery and does not retry', async () => {
      acquireReturns(handle('s1'), handle('s1', { agentUrl: 'http://127.0.0.1:42000', path: 'create', recreated: true }));
      agent.on('exec', async () => {
        throw agentErrors.reset();
      });
      await expect(manager.execute('s1', request, never())).rejects.toMatchObject({
        code: SessionErrorCode.AgentFailure,
        message: 'agent request: execute http://127.0.0.1:41000/exec: socket hang up',
      });
      expect(agent.callsOf('exec')).toHaveLength(1);
      expect(manager.cachedSessions).toBe(0);
      agent.on('exec', async () => execResponse());
      const next = await manager.execute('s1', request, never());
      expect(next.sandboxRecreated).toBe(true);
      expect(backend.callsOf('acquire')).toHaveLength(2);
    });

    it('re-acquires once and retries when the connection was refused (command not delivered)', async () => {
      const fresh = handle('s1', { agentUrl: 'http://127.0.0.1:42000', recreated: true });
      acquireReturns(handle('s1'), fresh);
      let n = 0;
      agent.on('exec', async () => {
        if (n++ === 0) throw agentErrors.refused();
        return execResponse();
      });
      const result = await manager.execute('s1', request, never());
      expect(result.sandboxRecreated).toBe(true);
      expect(agent.callsOf('exec').map((c) => c[0])).toEqual(['http://127.0.0.1:41000', 'http://127.0.0.1:42000']);
      expect(backend.callsOf('acquire')).toHaveLength(2);
    });

    it('re-acquires once when the cached sandbox is draining (503 "agent shutting down": its pod is being deleted)', async () => {
      acquireReturns(handle('s1'), handle('s1', { agentUrl: 'http://127.0.0.1:42000', recreated: true }));
      let n = 0;
      agent.on('exec', async () => {
        if (n++ === 0) throw agentErrors.status(503, 'agent shutting down');
        return execResponse({ stdout: 'on the new sandbox' });
      });
      const result = await manager.execute('s1', request, never());
      expect(result).toMatchObject({ sandboxRecreated: true, response: { stdout: 'on the new sandbox' } });
      expect(agent.callsOf('exec').map((c) => c[0])).toEqual(['http://127.0.0.1:41000', 'http://127.0.0.1:42000']);
    });

    it('surfaces a second refused connection', async () => {
      acquireReturns(handle('s1'));
      agent.on('exec', async () => {
        throw agentErrors.refused();
      });
      await expect(manager.execute('s1', request, never())).rejects.toMatchObject({
        code: SessionErrorCode.AgentFailure, message: expect.stringContaining('agent request: execute') as string,
      });
      expect(agent.callsOf('exec')).toHaveLength(2);
      expect(backend.callsOf('acquire')).toHaveLength(2);
    });

    it('re-assigns on 503 "agent not assigned" and retries once', async () => {
      acquireReturns(handle('s1'));
      backend.on('reassign', async () => undefined);
      let n = 0;
      agent.on('exec', async () => {
        if (n++ === 0) throw agentErrors.notAssigned();
        return execResponse({ stdout: 'ok' });
      });
      const result = await manager.execute('s1', request, never());
      expect(result.response.stdout).toBe('ok');
      // The agent restarted (its container did): the shell state is gone, the pod's /workspace is not.
      expect(result).toMatchObject({ sandboxRecreated: true, sandboxLoss: { shellState: true, files: false } });
      expect(backend.callsOf('reassign')).toHaveLength(1);
      expect(manager.cachedSessions).toBe(1);
    });

    it('surfaces a second "agent not assigned"', async () => {
      acquireReturns(handle('s1'));
      backend.on('reassign', async () => undefined);
      agent.on('exec', async () => {
        throw agentErrors.notAssigned();
      });
      await expect(manager.execute('s1', request, never())).rejects.toMatchObject({
        code: SessionErrorCode.AgentFailure,
        message: 'agent request: execute http://127.0.0.1:41000/exec: unexpected status 503: agent not assigned',
      });
      expect(backend.callsOf('reassign')).toHaveLength(1);
      expect(agent.callsOf('exec')).toHaveLength(2);
    });

    it('surfaces other statuses with the agent message, never the token, and keeps the cache', async () => {
      acquireReturns(handle('s1', { token: 'secret-token-value' }));
      agent.on('exec', async () => {
        throw agentErrors.status(500, 'shell failed');
      });
      const error = (await manager.execute('s1', request, never()).catch((e: unknown) => e)) as SessionError;
      expect(error.code).toBe(SessionErrorCode.AgentFailure);
      expect(error.message).toBe('agent request: execute http://127.0.0.1:41000/exec: unexpected status 500: shell failed');
      expect(error.message).not.toContain('secret-token-value');
      expect(manager.cachedSessions).toBe(1);
      expect(agent.callsOf('exec')).toHaveLength(1);
    });
  });

  describe('cancel (C-MCP-9)', () => {
    it('routes through backend.find on a cache miss and never creates a sandbox', async () => {
      backend.on('find', async () => handle('s1', { token: 'tok' }));
      agent.on('cancel', async () => ({ cancelled: true }));
      expect(await manager.cancel('s1', 'mcp-7')).toBe(true);
      expect(agent.callsOf('cancel')[0]!.slice(0, 3)).toEqual(['http://127.0.0.1:41000', 'tok', 'mcp-7']);
      expect(backend.callsOf('acquire')).toHaveLength(0);
    });

    it('returns false when the session has no sandbox', async () => {
      backend.on('find', async () => undefined);
      expect(await manager.cancel('s1', 'mcp-7')).toBe(false);
      expect(agent.calls).toEqual([]);
    });

    it('uses the cached handle when this replica has one', async () => {
      acquireReturns(handle('s1'));
      agent.on('exec', async () => execResponse()).on('cancel', async () => ({ cancelled: false }));
      await manager.execute('s1', request, never());
      expect(await manager.cancel('s1', 'mcp-7')).toBe(false);
      expect(backend.callsOf('find')).toHaveLength(0);
    });
  });

  describe('peek (C-MCP-10 progress)', () => {
    it('asks the sandbox found without creating one, and returns only a running answer', async () => {
      backend.on('find', async () => handle('s1', { token: 'tok' }));
      let running = true;
      agent.on('output', async () => (running ? { running: true, stdout: 'step 3', stderr: '' } : { running: false }));
      expect(await manager.peek('s1', 'mcp-7', never())).toEqual({ running: true, stdout: 'step 3', stderr: '' });
      expect(agent.callsOf('output')[0]!.slice(0, 3)).toEqual(['http://127.0.0.1:41000', 'tok', 'mcp-7']);
      running = false;
      expect(await manager.peek('s1', 'mcp-7', never())).toBeUndefined();
      expect(backend.callsOf('acquire')).toHaveLength(0);
    });

    it('never throws: no sandbox, a failed lookup and a failed agent call are all "unknown"', async () => {
      let n = 0;
      backend.on('find', async () => {
        n += 1;
        if (n === 1) return undefined;
        if (n === 2) throw new Error('list pods: 500');
        return handle('s1');
      });
      agent.on('output', async () => {
        throw agentErrors.refused();
      });
      for (let i = 0; i < 3; i++) expect(await manager.peek('s1', 'mcp-7', never())).toBeUndefined();
      expect(agent.callsOf('output')).toHaveLength(1);
    });
  });

  describe('end (C-HTTP-1)', () => {
    it('clears the cache and releases; idempotent', async () => {
      acquireReturns(handle('s1'));
      agent.on('exec', async () => execResponse());
      backend.on('release', async () => undefined);
      await manager.execute('s1', request, never());
      await manager.end('s1', never());
      await manager.end('s1', never());
      expect(manager.cachedSessions).toBe(0);
      expect(backend.callsOf('release').map((c) => c[0])).toEqual(['s1', 's1']);
    });

    it('wraps a backend failure', async () => {
      backend.on('release', async () => {
        throw new Error('kill EPERM');
      });
      await expect(manager.end('s1', never())).rejects.toMatchObject({
        code: SessionErrorCode.BackendFailure, message: 'end session: kill EPERM',
      });
    });
  });

  it('checkHealth delegates to the backend', async () => {
    backend.on('checkHealth', async () => {
      throw new SessionError(SessionErrorCode.SandboxUnavailable, 'bash cannot start');
    });
    await expect(manager.checkHealth(never())).rejects.toMatchObject({ message: 'bash cannot start' });
  });

  describe('prepare (C-MCP-13 eager acquisition)', () => {
    it('acquires and caches without running anything; the first command then finds the sandbox cached', async () => {
      acquireReturns(handle('s1', { path: 'create' }));
      expect(await manager.prepare('s1', never())).toBe('create');
      expect(agent.calls).toEqual([]);
      agent.on('exec', async () => execResponse());
      expect((await manager.execute('s1', request, never())).acquirePath).toBe('cache');
      expect(backend.callsOf('acquire')).toHaveLength(1);
    });

    it('shares the single flight with a command that arrives while it acquires', async () => {
      const gate = deferred<SandboxHandle>();
      backend.on('acquire', () => gate.promise);
      agent.on('exec', async () => execResponse());
      const eager = manager.prepare('s1', never());
      const call = manager.execute('s1', request, never());
      gate.resolve(handle('s1', { path: 'create' }));
      expect(await eager).toBe('create');
      expect((await call).acquirePath).toBe('create');
      expect(backend.callsOf('acquire')).toHaveLength(1);
    });

    it('counts and times the shared acquisition once: the requests that joined it are "shared", not misses', async () => {
      const gate = deferred<SandboxHandle>();
      backend.on('acquire', () => gate.promise);
      agent.on('exec', async () => execResponse());
      const initialize = manager.prepare('s1', never());
      clock.advance(2_000); // the model thinks; then tools/list and the first command come while the pod starts
      const toolsList = manager.prepare('s1', never());
      const call = manager.execute('s1', request, never());
      clock.advance(500);
      gate.resolve(handle('s1', { path: 'claim' }));
      await Promise.all([initialize, toolsList, call]);
      const text = await registry.metrics();
      expect(text).toContain(`${SESSION_METRIC_NAMES.acquisitions}{trigger="eager",result="ok"} 1`);
      expect(text).toContain(`${SESSION_METRIC_NAMES.lookups}{tier="cache",result="miss"} 3`);
      expect(text).toContain(`${SESSION_METRIC_NAMES.lookups}{tier="backend",result="miss"} 1`);
      expect(text).toContain(`${SESSION_METRIC_NAMES.lookups}{tier="backend",result="shared"} 2`);
      // One observation, the acquisition's own 2.5 s — not also the 0.5 s the joiners waited.
      expect(text).toContain(`${SESSION_METRIC_NAMES.acquireSeconds}_count{path="claim"} 1`);
      expect(text).toContain(`${SESSION_METRIC_NAMES.acquireSeconds}_sum{path="claim"} 2.5`);
    });

    it('a joiner that gives up leaves the acquisition to the others; abandoned by all, it is no backend error', async () => {
      const gate = deferred<SandboxHandle>();
      let shared: AbortSignal | undefined;
      backend.on('acquire', (_id, signal) => {
        shared = signal;
        return new Promise((resolve, reject) => {
          void gate.promise.then(resolve);
          signal.addEventListener('abort', () => reject(new Error('aborted')), { once: true });
        });
      });
      const eager = new AbortController();
      const caller = new AbortController();
      const prepared = manager.prepare('s1', eager.signal);
      const call = manager.execute('s1', request, caller.signal);
      caller.abort();
      await expect(call).rejects.toMatchObject({ code: SessionErrorCode.Cancelled });
      expect(shared?.aborted).toBe(false);
      eager.abort();
      await expect(prepared).rejects.toMatchObject({ code: SessionErrorCode.Cancelled });
      expect(shared?.aborted).toBe(true);
      const text = await registry.metrics();
      expect(text).toContain(`${SESSION_METRIC_NAMES.lookups}{tier="backend",result="shared"} 1`);
      expect(text).toContain(`${SESSION_METRIC_NAMES.acquisitions}{trigger="eager",result="error"} 1`);
      expect(text).not.toContain(`${SESSION_METRIC_NAMES.lookups}{tier="backend",result="error"}`);
    });

    it('costs nothing for a cached session, and a failed one leaves the next command to acquire again', async () => {
      let attempts = 0;
      backend.on('acquire', async () => {
        if (++attempts === 1) throw new Error('quota exceeded');
        return handle('s1', { path: 'create' });
      });
      await expect(manager.prepare('s1', never())).rejects.toMatchObject({ code: SessionErrorCode.BackendFailure });
      agent.on('exec', async () => execResponse());
      expect((await manager.execute('s1', request, never())).acquirePath).toBe('create');
      expect(await manager.prepare('s1', never())).toBe('cache');
      expect(backend.callsOf('acquire')).toHaveLength(2);
      const text = await registry.metrics();
      expect(text).toContain(`${SESSION_METRIC_NAMES.acquisitions}{trigger="eager",result="error"} 1`);
      expect(text).toContain(`${SESSION_METRIC_NAMES.acquisitions}{trigger="call",result="ok"} 1`);
      // The failed prepare and the command each missed the cache once; the cached prepare counted nothing.
      expect(text).toContain(`${SESSION_METRIC_NAMES.lookups}{tier="cache",result="miss"} 2`);
    });

    it('validates the session id and refuses after shutdown', async () => {
      await expect(manager.prepare('Bad_Id', never())).rejects.toMatchObject({ code: SessionErrorCode.InvalidSessionId });
      backend.on('shutdown', async () => undefined);
      await manager.shutdown();
      await expect(manager.prepare('s1', never())).rejects.toMatchObject({ code: SessionErrorCode.ShuttingDown });
    });
  });

  describe('metrics (§9)', () => {
    it('records lookups, acquisitions, exec outcomes and output bytes with bounded labels', async () => {
      acquireReturns(handle('s1', { path: 'create' }));
      const responses = [
        execResponse({ stdout_bytes: 10, stderr_bytes: 5 }),
        execResponse({ exit_code: 1 }),
        execResponse({ exit_code: 137, timed_out: true }),
        execResponse({ exit_code: 130, cancelled: true }),
      ];
      agent.on('exec', async () => responses.shift()!);
      for (let i = 0; i < 4; i++) await manager.execute('s1', request, never());
      agent.on('exec', async () => {
        throw agentErrors.status(500, 'boom');
      });
      await expect(manager.execute('s1', request, never())).rejects.toThrow();

      const text = await registry.metrics();
      expect(text).toContain(`${SESSION_METRIC_NAMES.lookups}{tier="cache",result="miss"} 1`);
      expect(text).toContain(`${SESSION_METRIC_NAMES.lookups}{tier="cache",result="hit"} 4`);
      expect(text).toContain(`${SESSION_METRIC_NAMES.lookups}{tier="backend",result="miss"} 1`);
      expect(text).toContain(`${SESSION_METRIC_NAMES.acquireSeconds}_count{path="create"} 1`);
      expect(text).toContain(`${SESSION_METRIC_NAMES.acquireSeconds}_count{path="cache"} 4`);
      for (const outcome of ['ok', 'nonzero', 'timeout', 'cancelled', 'error']) {
        expect(text).toContain(`${SESSION_METRIC_NAMES.execDurationSeconds}_count{outcome="${outcome}"} 1`);
      }
      expect(text).toContain(`${SESSION_METRIC_NAMES.execOutputBytes}_sum 24`);
      expect(text).toContain(`${SESSION_METRIC_NAMES.sessionsCached} 1`);
      // Bounded labels: no session id or agent URL anywhere in the exposition.
      expect(text).not.toContain('s1');
      expect(text).not.toContain('127.0.0.1');
    });
  });
});
