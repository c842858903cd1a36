import { existsSync, lstatSync, statSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FsWorkspaceStore } from './workspace-store.js';

describe(FsWorkspaceStore.name, () => {
  let base: string;
  let stateDir: string;
  beforeEach(async () => {
    base = await mkdtemp(join(tmpdir(), 'cli-mcp-ws-spec-'));
    stateDir = join(base, 'state');
  });
  afterEach(() => rm(base, { recursive: true, force: true }));

  it('prepares a private state dir, takes the lock and hands back the sessions a crashed server left, files kept', async () => {
    await mkdir(join(stateDir, 'sessions/old/workspace'), { recursive: true });
    await writeFile(join(stateDir, 'sessions/old/workspace/f'), 'x');
    await mkdir(join(stateDir, 'sessions/broken'), { recursive: true });
    await mkdir(join(stateDir, 'warm/warm-9/workspace'), { recursive: true });
    await writeFile(join(stateDir, 'local-backend.pid'), '999999999\n');
    const store = new FsWorkspaceStore(stateDir, { pid: process.pid, isAlive: () => false });
    expect(await store.prepare()).toEqual([{ sessionId: 'old', workspace: join(stateDir, 'sessions/old/workspace') }]);
    expect(await readFile(join(stateDir, 'sessions/old/workspace/f'), 'utf8')).toBe('x');
    // Without a workspace there is nothing to adopt; an unclaimed warm agent's directory held nobody's files.
    expect(existsSync(join(stateDir, 'sessions/broken'))).toBe(false);
    expect(existsSync(join(stateDir, 'warm/warm-9'))).toBe(false);
    expect(statSync(stateDir).mode & 0o777).toBe(0o700);
    expect((await readFile(join(stateDir, 'local-backend.pid'), 'utf8')).trim()).toBe(String(process.pid));
  });

  it('with reset (--local-reset-state) deletes what an earlier server left', async () => {
    await mkdir(join(stateDir, 'sessions/old/workspace'), { recursive: true });
    const store = new FsWorkspaceStore(stateDir);
    expect(await store.prepare(true)).toEqual([]);
    expect(existsSync(join(stateDir, 'sessions/old'))).toBe(false);
  });

  it('moves a claimed warm workspace into its session on restart, and finishes a move cut short', async () => {
    const first = new FsWorkspaceStore(stateDir);
    await first.prepare();
    await writeFile(join(await first.createWarm('warm-1'), 'f'), 'claimed');
    await first.adoptWarm('warm-1', 's1');
    await first.close();
    // A crash between staging the directory and replacing the link: `.adopting-s2` beside the dangling link.
    await mkdir(join(stateDir, 'sessions/.adopting-s2/workspace'), { recursive: true });
    await writeFile(join(stateDir, 'sessions/.adopting-s2/workspace/g'), 'staged');
    await symlink('../warm/warm-2', join(stateDir, 'sessions/s2'));
    const second = new FsWorkspaceStore(stateDir);
    const recovered = await second.prepare();
    expect(recovered.map((session) => session.sessionId).sort()).toEqual(['s1', 's2']);
    expect(lstatSync(join(stateDir, 'sessions/s1')).isDirectory()).toBe(true);
    expect(await readFile(join(stateDir, 'sessions/s1/workspace/f'), 'utf8')).toBe('claimed');
    expect(await readFile(join(stateDir, 'sessions/s2/workspace/g'), 'utf8')).toBe('staged');
    expect(existsSync(join(stateDir, 'sessions/.adopting-s2'))).toBe(false);
    await second.close();
  });

  it('refuses a state dir held by another live server', async () => {
    await mkdir(stateDir, { recursive: true });
    await writeFile(join(stateDir, 'local-backend.pid'), '4242\n');
    await expect(new FsWorkspaceStore(stateDir, { pid: process.pid, isAlive: (pid) => pid === 4242 }).prepare()).rejects.toThrow(
      /state directory .* is in use by process 4242: give each server its own --state-dir/,
    );
  });

  it('of two servers starting together on one state dir, exactly one gets it', async () => {
    const alive = new Set([1001, 1002]);
    const stores = [1001, 1002].map((pid) => new FsWorkspaceStore(stateDir, { pid, isAlive: (p) => alive.has(p) }));
    const outcomes = await Promise.allSettled(stores.map((store) => store.prepare()));
    expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(1);
    expect(outcomes.find((o) => o.status === 'rejected')).toMatchObject({ reason: { message: expect.stringMatching(/is in use by process 100[12]/) } });
  });

  it('of two servers taking over a dead server\'s lock together, exactly one gets it', async () => {
    await mkdir(stateDir, { recursive: true });
    await writeFile(join(stateDir, 'local-backend.pid'), '999999999\n');
    const alive = new Set([1001, 1002]);
    const stores = [1001, 1002].map((pid) => new FsWorkspaceStore(stateDir, { pid, isAlive: (p) => alive.has(p) }));
    const outcomes = await Promise.allSettled(stores.map((store) => store.prepare()));
    expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(1);
    const winner = outcomes.findIndex((o) => o.status === 'fulfilled');
    expect((await readFile(join(stateDir, 'local-backend.pid'), 'utf8')).trim()).toBe(String(1001 + winner));
  });

  it('gives new workspaces to the sandbox user of a root server', async () => {
    const store = new FsWorkspaceStore(stateDir);
    await store.prepare();
    const me = { uid: process.getuid!(), gid: process.getgid!() };
    store.setOwner(me);
    const workspace = await store.createSession('s1');
    expect(statSync(workspace)).toMatchObject(me);
    expect(statSync(join(workspace, '.cli-mcp'))).toMatchObject(me);
  });

  it('creates 0700 session workspaces with the output dir and removes them idempotently', async () => {
    const store = new FsWorkspaceStore(stateDir);
    await store.prepare();
    const workspace = await store.createSession('s1');
    expect(workspace).toBe(join(stateDir, 'sessions/s1/workspace'));
    expect(statSync(workspace).mode & 0o777).toBe(0o700);
    expect(existsSync(join(workspace, '.cli-mcp'))).toBe(true);
    await store.removeSession('s1');
    await store.removeSession('s1');
    expect(existsSync(join(stateDir, 'sessions/s1'))).toBe(false);
  });

  it('adopts a warm workspace through a symlink and removes both on release', async () => {
    const store = new FsWorkspaceStore(stateDir);
    await store.prepare();
    const warm = await store.createWarm('warm-1');
    await writeFile(join(warm, 'f'), 'x');
    expect(await store.adoptWarm('warm-1', 's1')).toBe(warm);
    expect(lstatSync(join(stateDir, 'sessions/s1')).isSymbolicLink()).toBe(true);
    expect(await readFile(join(store.sessionWorkspace('s1'), 'f'), 'utf8')).toBe('x');
    await store.removeSession('s1');
    expect(existsSync(join(stateDir, 'warm/warm-1'))).toBe(false);
    expect(existsSync(join(stateDir, 'sessions/s1'))).toBe(false);
  });

  it('close keeps the sessions\' workspaces for the next server, deletes the warm ones and releases the lock', async () => {
    const store = new FsWorkspaceStore(stateDir);
    await store.prepare();
    await store.createSession('s1');
    await store.createWarm('w');
    await store.close();
    expect(existsSync(join(stateDir, 'sessions/s1/workspace'))).toBe(true);
    expect(existsSync(join(stateDir, 'warm'))).toBe(false);
    expect(existsSync(join(stateDir, 'local-backend.pid'))).toBe(false);
  });
});
