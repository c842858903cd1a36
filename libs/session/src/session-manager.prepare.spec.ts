import { AgentErrorCode } from '@cli-mcp/agent-client';
import { describe, expect, it } from 'vitest';
import { agentErrors, deferred, execResponse, handle } from '../test/fakes.js';
import { useManagerFixture } from '../test/manager-fixture.js';
import { SessionErrorCode } from './session-error.js';
import type { SandboxHandle } from './sandbox-backend.port.js';
import { SessionManager } from './session-manager.js';
import { SESSION_METRIC_NAMES } from './session-metrics.js';

const never = () => new AbortController().signal;
const request = { command: 'echo hi', timeout: 60 };

describe(`${SessionManager.name}: eager acquisition and metrics`, () => {
  const f = useManagerFixture();

  describe('prepare (C-MCP-13 eager acquisition)', () => {
    it('acquires and caches without running anything; the first command then finds the sandbox cached', async () => {
      f.acquireReturns(handle('s1', { path: 'create' }));
      expect(await f.manager.prepare('s1', never())).toBe('create');
      expect(f.agent.calls).toEqual([]);
      f.agent.on('exec', async () => execResponse());
      expect((await f.manager.execute('s1', request, never())).acquirePath).toBe('cache');
      expect(f.backend.callsOf('acquire')).toHaveLength(1);
    });

    it('shares the single flight with a command that arrives while it acquires', async () => {
      const gate = deferred<SandboxHandle>();
      f.backend.on('acquire', () => gate.promise);
      f.agent.on('exec', async () => execResponse());
      const eager = f.manager.prepare('s1', never());
      const call = f.manager.execute('s1', request, never());
      gate.resolve(handle('s1', { path: 'create' }));
      expect(await eager).toBe('create');
      expect((await call).acquirePath).toBe('create');
      expect(f.backend.callsOf('acquire')).toHaveLength(1);
    });

    it('counts and times the shared acquisition once: the requests that joined it are "shared", not misses', async () => {
      const gate = deferred<SandboxHandle>();
      f.backend.on('acquire', () => gate.promise);
      f.agent.on('exec', async () => execResponse());
      const initialize = f.manager.prepare('s1', never());
      f.clock.advance(2_000); // the model thinks; then tools/list and the first command come while the pod starts
      const toolsList = f.manager.prepare('s1', never());
      const call = f.manager.execute('s1', request, never());
      f.clock.advance(500);
      gate.resolve(handle('s1', { path: 'claim' }));
      await Promise.all([initialize, toolsList, call]);
      const text = await f.registry.metrics();
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
      f.backend.on('acquire', (_id, signal) => {
        shared = signal;
        return new Promise((resolve, reject) => {
          void gate.promise.then(resolve);
          signal.addEventListener('abort', () => reject(new Error('aborted')), { once: true });
        });
      });
      const eager = new AbortController();
      const caller = new AbortController();
      const prepared = f.manager.prepare('s1', eager.signal);
      const call = f.manager.execute('s1', request, caller.signal);
      caller.abort();
      await expect(call).rejects.toMatchObject({ code: SessionErrorCode.Cancelled });
      expect(shared?.aborted).toBe(false);
      eager.abort();
      await expect(prepared).rejects.toMatchObject({ code: SessionErrorCode.Cancelled });
      expect(shared?.aborted).toBe(true);
      const text = await f.registry.metrics();
      expect(text).toContain(`${SESSION_METRIC_NAMES.lookups}{tier="backend",result="shared"} 1`);
      expect(text).toContain(`${SESSION_METRIC_NAMES.acquisitions}{trigger="eager",result="error"} 1`);
      expect(text).not.toContain(`${SESSION_METRIC_NAMES.lookups}{tier="backend",result="error"}`);
    });

    it('costs nothing for a cached session, and a failed one leaves the next command to acquire again', async () => {
      let attempts = 0;
      f.backend.on('acquire', async () => {
        if (++attempts === 1) throw new Error('quota exceeded');
        return handle('s1', { path: 'create' });
      });
      await expect(f.manager.prepare('s1', never())).rejects.toMatchObject({ code: SessionErrorCode.BackendFailure });
      f.agent.on('exec', async () => execResponse());
      expect((await f.manager.execute('s1', request, never())).acquirePath).toBe('create');
      expect(await f.manager.prepare('s1', never())).toBe('cache');
      expect(f.backend.callsOf('acquire')).toHaveLength(2);
      const text = await f.registry.metrics();
      expect(text).toContain(`${SESSION_METRIC_NAMES.acquisitions}{trigger="eager",result="error"} 1`);
      expect(text).toContain(`${SESSION_METRIC_NAMES.acquisitions}{trigger="call",result="ok"} 1`);
      // The failed prepare and the command each missed the cache once; the cached prepare counted nothing.
      expect(text).toContain(`${SESSION_METRIC_NAMES.lookups}{tier="cache",result="miss"} 2`);
    });

    it('validates the session id and refuses after shutdown', async () => {
      await expect(f.manager.prepare('Bad_Id', never())).rejects.toMatchObject({ code: SessionErrorCode.InvalidSessionId });
      f.backend.on('shutdown', async () => undefined);
      await f.manager.shutdown();
      await expect(f.manager.prepare('s1', never())).rejects.toMatchObject({ code: SessionErrorCode.ShuttingDown });
    });
  });

  describe('metrics (§9)', () => {
    it('records lookups, acquisitions, exec outcomes and output bytes with bounded labels', async () => {
      f.acquireReturns(handle('s1', { path: 'create' }));
      const responses = [
        execResponse({ stdout_bytes: 10, stderr_bytes: 5 }),
        execResponse({ exit_code: 1 }),
        execResponse({ exit_code: 137, timed_out: true }),
        execResponse({ exit_code: 130, cancelled: true }),
      ];
      f.agent.on('exec', async () => responses.shift()!);
      for (let i = 0; i < 4; i++) await f.manager.execute('s1', request, never());
      f.agent.on('exec', async () => {
        throw agentErrors.status(AgentErrorCode.Internal, 'boom');
      });
      await expect(f.manager.execute('s1', request, never())).rejects.toThrow();

      const text = await f.registry.metrics();
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
  });});
