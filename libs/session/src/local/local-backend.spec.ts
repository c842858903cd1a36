import { AgentError, AgentErrorCode } from '@cli-mcp/agent-client';
import { deriveSessionToken } from '@cli-mcp/auth';
import { describe, expect, it } from 'vitest';
import { key, never, useLocalBackend } from '../../test/local-backend-setup.js';
import { FakeRunner, flush } from '../../test/local-fakes.js';
import { SessionError, SessionErrorCode } from '../session-error.js';
import { LocalBackend } from './local-backend.js';

describe(LocalBackend.name, () => {
  const make = useLocalBackend();

  describe('acquire', () => {
    it('creates a workspace and an agent with the session token, then finds it again', async () => {
      const { backend, launcher, workspaces, agent } = make();
      const first = await backend.acquire('s1', never());
      expect(first).toMatchObject({ sessionId: 's1', agentUrl: 'unix:/state/sockets/0.sock', path: 'create', recreated: false });
      expect(first.token).toBe(deriveSessionToken(key, 's1'));
      expect(workspaces.sessions.get('s1')).toBe('/state/sessions/s1/workspace');
      const spec = launcher.launched[0]!.spec;
      expect(spec).toMatchObject({ command: '/usr/bin/node', args: ['--max-semi-space-size=1', '/repo/dist/apps/sandbox-agent/src/main.js'], cwd: '/state/sessions/s1/workspace' });
      // The token on a pipe, never in an environment (issue 20: bubblewrap's init keeps its environment readable).
      expect(spec.extraFds?.[1]).toEqual({ kind: 'data', content: first.token });
      expect(spec.env.SANDBOX_AUTH_TOKEN_FD).toBe('5');
      // The agent inherits the socket the server bound (issue 22): first of the extra descriptors, so fd 4.
      expect(spec.extraFds?.[0]).toEqual({ kind: 'inherit', fd: 99 });
      expect(spec.env.SANDBOX_AGENT_LISTEN_FD).toBe('4');
      expect(spec.env).not.toHaveProperty('SECRET');
      expect(spec.env.LANG).toBe('C.UTF-8');
      const again = await backend.acquire('s1', never());
      expect(again).toMatchObject({ agentUrl: first.agentUrl, path: 'discover', recreated: false });
      expect(agent.callsOf('health')).toHaveLength(1);
      expect(launcher.launched).toHaveLength(1);
      expect(backend.activeSessions).toBe(1);
    });

    it('delivers the server\'s timeouts to every agent, so its max is no lower than the server\'s (C-AG-14)', async () => {
      const { backend, launcher } = make({ defaultTimeoutSeconds: 60, maxTimeoutSeconds: 600 });
      await backend.acquire('s1', never());
      expect(launcher.launched[0]!.spec.env).toMatchObject({ SANDBOX_MAX_TIMEOUT_SECONDS: '600', SANDBOX_DEFAULT_TIMEOUT_SECONDS: '60' });
    });

    it('serialises concurrent acquisitions of one session', async () => {
      const { backend, launcher } = make();
      const handles = await Promise.all(Array.from({ length: 5 }, () => backend.acquire('s1', never())));
      expect(new Set(handles.map((h) => h.agentUrl)).size).toBe(1);
      expect(launcher.launched).toHaveLength(1);
    });

    it('enforces maxSessions with an actionable message; ending a session frees a slot', async () => {
      const { backend } = make({ maxSessions: 2 });
      await backend.acquire('s1', never());
      await backend.acquire('s2', never());
      const error = (await backend.acquire('s3', never()).catch((e: unknown) => e)) as SessionError;
      expect(error.code).toBe(SessionErrorCode.CapacityExhausted);
      expect(error.message).toBe('maximum number of sessions (2) reached: end one with DELETE /sessions/{id} or raise --max-sessions');
      await backend.end('s1');
      await expect(backend.acquire('s3', never())).resolves.toMatchObject({ path: 'create' });
    });

    it('recreates a crashed agent in the same workspace and says so', async () => {
      const { backend, launcher, workspaces } = make();
      await backend.acquire('s1', never());
      launcher.launched[0]!.crash(137);
      await flush();
      expect(await backend.find('s1')).toBeUndefined();
      const next = await backend.acquire('s1', never());
      expect(next).toMatchObject({ path: 'create', recreated: true, lost: { shellState: true, files: false }, agentUrl: 'unix:/state/sockets/1.sock' });
      expect(launcher.launched[1]!.spec.cwd).toBe('/state/sessions/s1/workspace');
      expect(workspaces.sessions.size).toBe(1);
      expect((await backend.acquire('s1', never())).recreated).toBe(false);
    });

    it('reports every end of a session agent to onSandboxGone listeners', async () => {
      const { backend, launcher } = make();
      const gone: string[] = [];
      backend.onSandboxGone((id) => gone.push(id));
      await backend.acquire('s1', never());
      await backend.acquire('s2', never());
      launcher.launched[0]!.crash();
      await flush();
      await backend.end('s2');
      expect(gone).toEqual(['s1', 's2']);
    });

    it('replaces an agent that refuses connections although its process still runs', async () => {
      const { backend, launcher, agent } = make();
      await backend.acquire('s1', never());
      agent.on('health', async () => {
        throw new AgentError(AgentErrorCode.Network, 'connect ECONNREFUSED 127.0.0.1:40000', { op: 'health_check', url: 'http://127.0.0.1:40000/health', errno: 'ECONNREFUSED' });
      });
      const next = await backend.acquire('s1', never());
      expect(next.recreated).toBe(true);
      expect(launcher.launched[0]!.signals).toEqual(['SIGKILL']);
    });

    it('recreates an agent that crashed while it was being probed (seen by both, handled once)', async () => {
      const { backend, launcher, agent } = make();
      await backend.acquire('s1', never());
      agent.on('health', async () => {
        launcher.launched[0]!.crash();
        await flush();
        throw new AgentError(AgentErrorCode.Network, 'connect ECONNREFUSED', { op: 'health_check', url: 'unix:/x', errno: 'ECONNREFUSED' });
      });
      const next = await backend.acquire('s1', never());
      expect(next).toMatchObject({ recreated: true, lost: { shellState: true, files: false } });
      expect(launcher.launched[0]!.signals).toEqual([]);
      expect(launcher.alive()).toHaveLength(1);
    });

    it('keeps a slow agent (probe timeout is not a crash)', async () => {
      const { backend, launcher, agent } = make();
      await backend.acquire('s1', never());
      agent.on('health', async () => {
        throw new AgentError(AgentErrorCode.Aborted, 'request aborted', { op: 'health_check', url: 'u' });
      });
      expect((await backend.acquire('s1', never())).path).toBe('discover');
      expect(launcher.launched).toHaveLength(1);
    });

    it('kills an agent that is not ready in time and frees the slot', async () => {
      const { backend, launcher, clock, workspaces } = make({ readyTimeoutMs: 1000, maxSessions: 1 });
      launcher.autoReady = false;
      const pending = backend.acquire('s1', never());
      await flush();
      clock.advance(1000);
      await expect(pending).rejects.toMatchObject({ code: SessionErrorCode.SandboxUnavailable, message: 'start sandbox: agent not ready within 1000 ms' });
      expect(launcher.launched[0]!.signals).toEqual(['SIGKILL']);
      expect(workspaces.sessions.size).toBe(0);
      expect(backend.activeSessions).toBe(0);
    });

    it('tries once more when bubblewrap itself failed to build the sandbox (nothing ran yet)', async () => {
      const { backend, launcher } = make();
      launcher.autoReady = false;
      const pending = backend.acquire('s1', never());
      await flush();
      launcher.launched[0]!.stderrLine = 'bwrap: loopback: Failed RTM_NEWADDR: No child processes';
      launcher.launched[0]!.crash(1);
      await flush();
      launcher.launched[1]!.becomeReady(40_123);
      await expect(pending).resolves.toMatchObject({ agentUrl: 'unix:/state/sockets/1.sock', path: 'create' });
    });

    it('reports an agent that exits before it is ready', async () => {
      const { backend, launcher } = make();
      launcher.autoReady = false;
      const pending = backend.acquire('s1', never());
      await flush();
      launcher.launched[0]!.crash(1);
      await expect(pending).rejects.toThrow('start sandbox: agent exited with code 1 before it was ready');
    });
  });

  describe('find, reassign, release', () => {
    it('find returns the live handle or undefined and never starts anything', async () => {
      const { backend, launcher } = make();
      expect(await backend.find('s1')).toBeUndefined();
      expect(launcher.launched).toHaveLength(0);
      const created = await backend.acquire('s1', never());
      expect(await backend.find('s1')).toMatchObject({ agentUrl: created.agentUrl, path: 'discover' });
    });

    it('reassign treats 200 as done, and a 409 as done when the agent holds our token, else as an agent that belongs to someone else (C-AG-13)', async () => {
      const { backend, agent } = make();
      const created = await backend.acquire('s1', never());
      agent.on('assign', async () => undefined);
      await expect(backend.reassign(created, never())).resolves.toBeUndefined();
      expect(agent.callsOf('assign')[0]!.slice(0, 2)).toEqual([created.agentUrl, created.token]);
      agent.on('assign', async () => {
        throw new AgentError(AgentErrorCode.AlreadyAssigned, 'unexpected status 409', { op: 'assign', url: 'u', status: 409, agentMessage: 'already assigned' });
      });
      // A 409 is settled by asking whether the agent takes OUR token (the one token delivery, token-delivery.ts).
      agent.on('output', async (_url: string, token: string) => {
        if (token === created.token) return { running: false };
        throw new AgentError(AgentErrorCode.Unauthorized, 'unauthorized', { op: 'output', url: 'u', status: 401 });
      });
      await expect(backend.reassign(created, never())).resolves.toBeUndefined();
      agent.on('output', async () => {
        throw new AgentError(AgentErrorCode.Unauthorized, 'unauthorized', { op: 'output', url: 'u', status: 401 });
      });
      await expect(backend.reassign(created, never())).rejects.toMatchObject({
        code: SessionErrorCode.AgentFailure, message: 'the sandbox agent is assigned to another session',
      });
    });

    it('release stops the agent (SIGTERM) and deletes the workspace; idempotent', async () => {
      const { backend, launcher, workspaces } = make();
      await backend.end('s0');
      await backend.acquire('s1', never());
      await backend.end('s1');
      await backend.end('s1');
      expect(launcher.launched[0]!.signals).toEqual(['SIGTERM']);
      expect(workspaces.sessions.size).toBe(0);
      expect((await backend.acquire('s1', never())).recreated).toBe(false);
    });

    it('escalates to SIGKILL after the grace', async () => {
      const { backend, launcher, clock } = make({ stopGraceMs: 5000 });
      await backend.acquire('s1', never());
      launcher.launched[0]!.exitsOnTerm = false;
      const released = backend.end('s1');
      await flush();
      expect(launcher.launched[0]!.signals).toEqual(['SIGTERM']);
      clock.advance(5000);
      await released;
      expect(launcher.launched[0]!.signals).toEqual(['SIGTERM', 'SIGKILL']);
    });
  });

  describe('idle reaping', () => {
    it('releases a session idle for idleTimeoutMs; its next use is a recreation', async () => {
      const { backend, launcher, clock, workspaces } = make({ idleTimeoutMs: 60_000 });
      const h = await backend.acquire('s1', never());
      clock.advance(30_000);
      backend.touch(h);
      clock.advance(59_999);
      await flush();
      expect(launcher.alive()).toHaveLength(1);
      clock.advance(1);
      await flush();
      expect(launcher.alive()).toHaveLength(0);
      expect(workspaces.sessions.size).toBe(0);
      expect(backend.activeSessions).toBe(0);
      expect(await backend.acquire('s1', never())).toMatchObject({ recreated: true, lost: { shellState: true, files: true } });
    });

    it('does not reap during an in-flight command', async () => {
      const { backend, launcher, clock } = make({ idleTimeoutMs: 60_000 });
      const h = await backend.acquire('s1', never());
      const done = backend.beginCommand(h);
      clock.advance(120_000);
      await flush();
      expect(launcher.alive()).toHaveLength(1);
      done();
      clock.advance(60_000);
      await flush();
      expect(launcher.alive()).toHaveLength(0);
    });
  });

  describe('warm pool', () => {
    it('starts unassigned agents, claims one with /assign and refills at once', async () => {
      const { backend, launcher, agent, workspaces } = make({ warmPoolSize: 2 });
      agent.on('assign', async () => undefined);
      await backend.start();
      await flush();
      expect(launcher.launched).toHaveLength(2);
      expect(launcher.launched.every((p) => p.spec.env.SANDBOX_AUTH_TOKEN_FD === undefined)).toBe(true);
      expect(backend.warmReady).toBe(2);
      const claimed = await backend.acquire('s1', never());
      expect(claimed).toMatchObject({ path: 'claim', agentUrl: 'unix:/state/sockets/0.sock', recreated: false });
      expect(agent.callsOf('assign')[0]!.slice(0, 2)).toEqual(['unix:/state/sockets/0.sock', deriveSessionToken(key, 's1')]);
      expect(workspaces.sessions.get('s1')).toMatch(/^\/state\/warm\/warm-[0-9a-f]+\/workspace$/);
      await flush();
      expect(launcher.launched).toHaveLength(3);
      expect(backend.warmReady).toBe(2);
    });

    it('falls back to a new agent when the claim fails, stopping the warm one', async () => {
      const { backend, launcher, agent } = make({ warmPoolSize: 1 });
      agent.on('assign', async () => {
        throw new AgentError(AgentErrorCode.Network, 'socket hang up', { op: 'assign', url: 'u' });
      });
      // A hang-up may come after the agent took the assign: asked, it holds no token, so the claim failed.
      agent.on('output', async () => {
        throw new AgentError(AgentErrorCode.NotAssigned, 'not assigned', { op: 'output', url: 'u', status: 503 });
      });
      await backend.start();
      await flush();
      const h = await backend.acquire('s1', never());
      expect(h.path).toBe('create');
      expect(launcher.launched[0]!.hasExited).toBe(true);
    });

    it('never uses a warm agent whose /assign answers 409 (it holds another token)', async () => {
      const { backend, launcher, agent } = make({ warmPoolSize: 1 });
      agent.on('assign', async () => {
        throw new AgentError(AgentErrorCode.AlreadyAssigned, 'unexpected status 409', { op: 'assign', url: 'u', status: 409, agentMessage: 'already assigned' });
      });
      agent.on('output', async () => {
        throw new AgentError(AgentErrorCode.Unauthorized, 'unauthorized', { op: 'output', url: 'u', status: 401 });
      });
      await backend.start();
      await flush();
      const h = await backend.acquire('s1', never());
      expect(h).toMatchObject({ path: 'create', agentUrl: 'unix:/state/sockets/2.sock' });
      expect(launcher.launched[0]!.hasExited).toBe(true);
    });

    it('replaces a warm agent that died in the pool', async () => {
      const { backend, launcher } = make({ warmPoolSize: 1 });
      await backend.start();
      await flush();
      launcher.launched[0]!.crash();
      await flush();
      expect(launcher.launched).toHaveLength(2);
      expect(backend.warmReady).toBe(1);
    });
  });

  describe('shutdown', () => {
    it('stops every agent (SIGTERM, then SIGKILL after the grace), cleans the state dir and refuses new work', async () => {
      const { backend, launcher, clock, workspaces, agent } = make({ warmPoolSize: 1 });
      agent.on('assign', async () => undefined);
      await backend.acquire('s1', never());
      await backend.acquire('s2', never());
      await flush();
      const running = launcher.alive();
      expect(running).toHaveLength(3);
      for (const child of running) child.exitsOnTerm = false;
      const stopping = backend.shutdown();
      await flush();
      expect(running.map((c) => c.signals)).toEqual([['SIGTERM'], ['SIGTERM'], ['SIGTERM']]);
      clock.advance(5000);
      await stopping;
      expect(launcher.alive()).toEqual([]);
      expect(running.map((c) => c.signals)).toEqual(Array(3).fill(['SIGTERM', 'SIGKILL']));
      expect(workspaces.closed).toBe(1);
      await expect(backend.acquire('s3', never())).rejects.toMatchObject({ code: SessionErrorCode.ShuttingDown });
    });
  });

  describe('checkHealth (C-HTTP-2)', () => {
    it('needs the agent entry and a working bash; probes are cached briefly', async () => {
      const runner = new FakeRunner();
      const { backend, hostFs, clock } = make({ commandRunner: runner });
      await backend.checkHealth();
      await backend.checkHealth();
      expect(runner.runs.filter((r) => r.startsWith('bash'))).toEqual(['bash -c true']);
      clock.advance(10_000);
      await backend.checkHealth();
      expect(runner.runs.filter((r) => r.startsWith('bash'))).toHaveLength(2);
      hostFs.files.clear();
      await expect(backend.checkHealth()).rejects.toThrow(/--backend local cannot run in this installation: it has no sandbox agent bundle/);
    });

    it('fails when bash cannot start', async () => {
      const { backend } = make({ commandRunner: new FakeRunner({ bash: { ok: false, detail: 'spawn bash ENOENT' } }) });
      await expect(backend.checkHealth()).rejects.toThrow('bash cannot start: spawn bash ENOENT');
    });
  });
});
