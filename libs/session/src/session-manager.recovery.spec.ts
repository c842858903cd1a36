import { AgentErrorCode } from '@cli-mcp/agent-client';
import { describe, expect, it } from 'vitest';
import { agentErrors, execResponse, handle } from '../test/fakes.js';
import { useManagerFixture } from '../test/manager-fixture.js';
import { SessionError, SessionErrorCode } from './session-error.js';
import type { ExecRequest } from './sandbox-backend.port.js';
import { SessionManager } from './session-manager.js';

const never = () => new AbortController().signal;
const request = { command: 'echo hi', timeout: 60 };

describe(`${SessionManager.name} recovery`, () => {
  const f = useManagerFixture();

  describe('recovery (C-K8S-7)', () => {
    it('a network error after delivery: asks the same agent once more with the same key, then invalidates and never runs it elsewhere', async () => {
      f.acquireReturns(handle('s1'), handle('s1', { agentUrl: 'http://127.0.0.1:42000', path: 'create', recreated: true }));
      f.agent.on('exec', async () => {
        throw agentErrors.reset();
      });
      await expect(f.manager.execute('s1', request, never())).rejects.toMatchObject({
        code: SessionErrorCode.AgentFailure,
        message: 'agent request: execute http://127.0.0.1:41000/exec: socket hang up',
      });
      const attempts = f.agent.callsOf('exec') as Array<[string, string, ExecRequest]>;
      expect(attempts.map(([url]) => url)).toEqual(['http://127.0.0.1:41000', 'http://127.0.0.1:41000']);
      expect(attempts[1]![2].idempotency_key).toBe(attempts[0]![2].idempotency_key);
      expect(f.manager.cachedSessions).toBe(0);
      f.agent.on('exec', async () => execResponse());
      const next = await f.manager.execute('s1', request, never());
      expect(next.sandboxRecreated).toBe(true);
      expect(f.backend.callsOf('acquire')).toHaveLength(2);
    });

    it('a command cut off because the backend stopped its sandbox says why first (issue 22)', async () => {
      f.acquireReturns(handle('s1'));
      f.backend.on('stopReason', () => 'the sandbox was stopped because /workspace used 5Gi, 1Gi over its 4Gi bound (--local-max-disk)');
      f.agent.on('exec', async () => {
        throw agentErrors.reset();
      });
      await expect(f.manager.execute('s1', request, never())).rejects.toMatchObject({
        code: SessionErrorCode.AgentFailure,
        message: 'the sandbox was stopped because /workspace used 5Gi, 1Gi over its 4Gi bound (--local-max-disk) (agent request: execute http://127.0.0.1:41000/exec: socket hang up)',
      });
    });

    it('a lost answer re-asked with the same key returns the first result (C-AG-15)', async () => {
      f.acquireReturns(handle('s1'));
      let n = 0;
      f.agent.on('exec', async () => {
        if (n++ === 0) throw agentErrors.reset();
        return execResponse({ stdout: 'ran once' });
      });
      expect((await f.manager.execute('s1', request, never())).response.stdout).toBe('ran once');
      const keys = (f.agent.callsOf('exec') as Array<[string, string, ExecRequest]>).map(([, , body]) => body.idempotency_key);
      expect(keys).toHaveLength(2);
      expect(new Set(keys).size).toBe(1);
      expect(f.manager.cachedSessions).toBe(1);
    });

    it('a lost answer whose re-ask finds no agent is not run on a new sandbox', async () => {
      f.acquireReturns(handle('s1'), handle('s1', { agentUrl: 'http://127.0.0.1:42000', recreated: true }));
      let n = 0;
      f.agent.on('exec', async () => {
        throw n++ === 0 ? agentErrors.reset() : agentErrors.refused();
      });
      await expect(f.manager.execute('s1', request, never())).rejects.toMatchObject({ message: 'agent request: execute http://127.0.0.1:41000/exec: socket hang up' });
      expect(f.agent.callsOf('exec').map((c) => c[0])).toEqual(['http://127.0.0.1:41000', 'http://127.0.0.1:41000']);
      expect(f.backend.callsOf('acquire')).toHaveLength(1);
      expect(f.manager.cachedSessions).toBe(0);
    });

    it('re-acquires once and retries when the connection was refused (command not delivered)', async () => {
      const fresh = handle('s1', { agentUrl: 'http://127.0.0.1:42000', recreated: true });
      f.acquireReturns(handle('s1'), fresh);
      let n = 0;
      f.agent.on('exec', async () => {
        if (n++ === 0) throw agentErrors.refused();
        return execResponse();
      });
      const result = await f.manager.execute('s1', request, never());
      expect(result.sandboxRecreated).toBe(true);
      expect(f.agent.callsOf('exec').map((c) => c[0])).toEqual(['http://127.0.0.1:41000', 'http://127.0.0.1:42000']);
      expect(f.backend.callsOf('acquire')).toHaveLength(2);
    });

    it('re-acquires once when the cached sandbox is draining (503 "agent shutting down": its pod is being deleted)', async () => {
      f.acquireReturns(handle('s1'), handle('s1', { agentUrl: 'http://127.0.0.1:42000', recreated: true }));
      let n = 0;
      f.agent.on('exec', async () => {
        if (n++ === 0) throw agentErrors.status(AgentErrorCode.ShuttingDown);
        return execResponse({ stdout: 'on the new sandbox' });
      });
      const result = await f.manager.execute('s1', request, never());
      expect(result).toMatchObject({ sandboxRecreated: true, response: { stdout: 'on the new sandbox' } });
      expect(f.agent.callsOf('exec').map((c) => c[0])).toEqual(['http://127.0.0.1:41000', 'http://127.0.0.1:42000']);
    });

    it('surfaces a second refused connection', async () => {
      f.acquireReturns(handle('s1'));
      f.agent.on('exec', async () => {
        throw agentErrors.refused();
      });
      await expect(f.manager.execute('s1', request, never())).rejects.toMatchObject({
        code: SessionErrorCode.AgentFailure, message: expect.stringContaining('agent request: execute') as string,
      });
      expect(f.agent.callsOf('exec')).toHaveLength(2);
      expect(f.backend.callsOf('acquire')).toHaveLength(2);
    });

    it('re-assigns on 503 "agent not assigned" and retries once', async () => {
      f.acquireReturns(handle('s1'));
      f.backend.on('reassign', async () => undefined);
      let n = 0;
      f.agent.on('exec', async () => {
        if (n++ === 0) throw agentErrors.notAssigned();
        return execResponse({ stdout: 'ok' });
      });
      const result = await f.manager.execute('s1', request, never());
      expect(result.response.stdout).toBe('ok');
      // The agent restarted (its container did): the shell state is gone, the pod's /workspace is not.
      expect(result).toMatchObject({ sandboxRecreated: true, sandboxLoss: { shellState: true, files: false } });
      expect(f.backend.callsOf('reassign')).toHaveLength(1);
      expect(f.manager.cachedSessions).toBe(1);
    });

    it('surfaces a second "agent not assigned"', async () => {
      f.acquireReturns(handle('s1'));
      f.backend.on('reassign', async () => undefined);
      f.agent.on('exec', async () => {
        throw agentErrors.notAssigned();
      });
      await expect(f.manager.execute('s1', request, never())).rejects.toMatchObject({
        code: SessionErrorCode.AgentFailure,
        message: 'agent request: execute http://127.0.0.1:41000/exec: unexpected status 503: agent not assigned',
      });
      expect(f.backend.callsOf('reassign')).toHaveLength(1);
      expect(f.agent.callsOf('exec')).toHaveLength(2);
    });

    it('surfaces other statuses with the agent message, never the token, and keeps the cache', async () => {
      f.acquireReturns(handle('s1', { token: 'secret-token-value' }));
      f.agent.on('exec', async () => {
        throw agentErrors.status(AgentErrorCode.Internal, 'shell failed');
      });
      const error = (await f.manager.execute('s1', request, never()).catch((e: unknown) => e)) as SessionError;
      expect(error.code).toBe(SessionErrorCode.AgentFailure);
      expect(error.message).toBe('agent request: execute http://127.0.0.1:41000/exec: unexpected status 500: shell failed');
      expect(error.message).not.toContain('secret-token-value');
      expect(f.manager.cachedSessions).toBe(1);
      expect(f.agent.callsOf('exec')).toHaveLength(1);
    });
  });
});
