import { deriveSessionToken } from '@cli-mcp/auth';
import { describe, expect, it } from 'vitest';
import { key, never, useLocalBackend } from '../../test/local-backend-setup.js';
import { flush } from '../../test/local-fakes.js';
import { SessionErrorCode } from '../session-error.js';
import { LocalBackend } from './local-backend.js';

describe(`${LocalBackend.name}: sessions an earlier server left (issue 22)`, () => {
  const make = useLocalBackend();

  it('adopts them: the next command gets a new agent in the kept workspace, reported as shell state lost, files kept', async () => {
    const { backend, launcher, workspaces } = make();
    workspaces.leftover = ['s1'];
    await backend.start();
    expect(backend.activeSessions).toBe(1);
    expect(launcher.launched).toHaveLength(0);
    const handle = await backend.acquire('s1', never());
    expect(handle).toMatchObject({ path: 'create', recreated: true, lost: { shellState: true, files: false }, token: deriveSessionToken(key, 's1') });
    expect(launcher.launched[0]!.spec.cwd).toBe('/state/sessions/s1/workspace');
    expect(await backend.acquire('s1', never())).toMatchObject({ path: 'discover', recreated: false });
  });

  it('removes an adopted session that stays idle past the timeout, counted from the restart', async () => {
    const { backend, clock, workspaces } = make({ idleTimeoutMs: 60_000 });
    workspaces.leftover = ['s1'];
    await backend.start();
    clock.advance(59_000);
    await flush();
    expect(workspaces.sessions.has('s1')).toBe(true);
    clock.advance(1_000);
    await flush();
    expect(workspaces.sessions.has('s1')).toBe(false);
    expect(backend.activeSessions).toBe(0);
  });

  it('counts adopted sessions against --max-sessions', async () => {
    const { backend, workspaces } = make({ maxSessions: 1 });
    workspaces.leftover = ['s1'];
    await expect(backend.acquire('s2', never())).rejects.toMatchObject({ code: SessionErrorCode.CapacityExhausted });
  });

  it('with resetState (--local-reset-state) adopts nothing', async () => {
    const { backend, workspaces } = make({ resetState: true });
    workspaces.leftover = ['s1'];
    await backend.start();
    expect(workspaces.resets).toBe(1);
    expect(backend.activeSessions).toBe(0);
  });

  it('keeps the workspaces at shutdown; only DELETE deletes one', async () => {
    const { backend, workspaces } = make();
    await backend.acquire('s1', never());
    await backend.acquire('s2', never());
    await backend.end('s2');
    await backend.shutdown();
    expect([...workspaces.sessions.keys()]).toEqual(['s1']);
  });
});
