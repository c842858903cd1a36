import { chmod, chown, mkdir, readlink, rm, symlink } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { SandboxUser } from './bwrap-command.js';
import { acquireStateDirLock, releaseStateDirLock, type LockIdentity } from './state-dir-lock.js';

/**
 * The backend's directories under the state dir (all 0700):
 * `sessions/<id>/workspace` — a session's files (kept across agent crashes, deleted at release);
 * `warm/<name>/workspace` — a warm agent's; on claim `sessions/<id>` becomes a symlink to `../warm/<name>`, since
 * the running agent already uses that path.
 */
export interface WorkspaceStore {
  readonly stateDir: string;
  /** Creates the state dir, takes its lock (one server per state dir) and deletes what a crashed server left. */
  prepare(): Promise<void>;
  sessionWorkspace(sessionId: string): string;
  createSession(sessionId: string): Promise<string>;
  createWarm(name: string): Promise<string>;
  /** Makes a warm agent's directory the session's; returns the workspace path. */
  adoptWarm(name: string, sessionId: string): Promise<string>;
  removeSession(sessionId: string): Promise<void>;
  removeWarm(name: string): Promise<void>;
  /** Sandboxes run as `owner` (a root server's unprivileged sandbox user): new workspaces belong to it. */
  setOwner(owner: SandboxUser | undefined): void;
  /** Deletes every workspace and releases the lock (shutdown). */
  close(): Promise<void>;
}

const LOCK_FILE = 'local-backend.pid';
const PRIVATE = 0o700;

export class FsWorkspaceStore implements WorkspaceStore {
  readonly stateDir: string;
  private readonly sessionsDir: string;
  private readonly warmDir: string;

  private owner?: SandboxUser;

  constructor(stateDir: string, private readonly self: LockIdentity = { pid: process.pid, isAlive: processIsAlive }) {
    this.stateDir = resolve(stateDir);
    this.sessionsDir = join(this.stateDir, 'sessions');
    this.warmDir = join(this.stateDir, 'warm');
  }

  async prepare(): Promise<void> {
    await mkdir(this.stateDir, { recursive: true, mode: PRIVATE });
    await chmod(this.stateDir, PRIVATE);
    await acquireStateDirLock(join(this.stateDir, LOCK_FILE), this.stateDir, this.self);
    // Sandboxes die with their server, so leftovers belong to nobody: start clean.
    await rm(this.sessionsDir, { recursive: true, force: true });
    await rm(this.warmDir, { recursive: true, force: true });
    await mkdir(this.sessionsDir, { mode: PRIVATE });
    await mkdir(this.warmDir, { mode: PRIVATE });
  }

  setOwner(owner: SandboxUser | undefined): void {
    this.owner = owner;
  }

  sessionWorkspace(sessionId: string): string {
    return join(this.sessionsDir, sessionId, 'workspace');
  }

  async createSession(sessionId: string): Promise<string> {
    return this.createWorkspace(join(this.sessionsDir, sessionId));
  }

  async createWarm(name: string): Promise<string> {
    return this.createWorkspace(join(this.warmDir, name));
  }

  async adoptWarm(name: string, sessionId: string): Promise<string> {
    await rm(join(this.sessionsDir, sessionId), { recursive: true, force: true });
    await symlink(join('..', 'warm', name), join(this.sessionsDir, sessionId));
    return join(this.warmDir, name, 'workspace');
  }

  async removeSession(sessionId: string): Promise<void> {
    const link = join(this.sessionsDir, sessionId);
    const target = await readlink(link).catch(() => undefined);
    if (target !== undefined) await rm(resolve(this.sessionsDir, target), { recursive: true, force: true });
    await rm(link, { recursive: true, force: true });
  }

  async removeWarm(name: string): Promise<void> {
    await rm(join(this.warmDir, name), { recursive: true, force: true });
  }

  async close(): Promise<void> {
    await rm(this.sessionsDir, { recursive: true, force: true });
    await rm(this.warmDir, { recursive: true, force: true });
    await releaseStateDirLock(join(this.stateDir, LOCK_FILE), this.self);
  }

  private async createWorkspace(dir: string): Promise<string> {
    const workspace = join(dir, 'workspace');
    await mkdir(dir, { mode: PRIVATE });
    await mkdir(workspace, { mode: PRIVATE });
    await mkdir(join(workspace, '.cli-mcp'), { mode: PRIVATE });
    if (this.owner) {
      await chown(workspace, this.owner.uid, this.owner.gid);
      await chown(join(workspace, '.cli-mcp'), this.owner.uid, this.owner.gid);
    }
    return workspace;
  }
}

function processIsAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
