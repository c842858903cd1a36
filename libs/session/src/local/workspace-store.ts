import { chmod, chown, lstat, mkdir, readdir, readlink, rename, rm, symlink } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { SandboxUser } from './bwrap-command.js';
import { acquireStateDirLock, releaseStateDirLock, type LockIdentity } from './state-dir-lock.js';

/**
 * The backend's directories under the state dir (all 0700):
 * `sessions/<id>/workspace` — a session's files (kept across agent crashes and server restarts, deleted at release);
 * `warm/<name>/workspace` — a warm agent's; on claim `sessions/<id>` becomes a symlink to `../warm/<name>`, since
 * the running agent already uses that path.
 */
export interface WorkspaceStore {
  readonly stateDir: string;
  /**
   * Creates the state dir and takes its lock (one server per state dir). Returns the sessions an earlier server
   * left, whose files are kept (issue 22: a restart loses no workspace); `reset` (`--local-reset-state`) deletes
   * them instead. Warm workspaces are always deleted: their agents are dead and they held nothing of a client's.
   */
  prepare(reset?: boolean): Promise<RecoveredSession[]>;
  sessionWorkspace(sessionId: string): string;
  createSession(sessionId: string): Promise<string>;
  createWarm(name: string): Promise<string>;
  /** Makes a warm agent's directory the session's; returns the workspace path. */
  adoptWarm(name: string, sessionId: string): Promise<string>;
  removeSession(sessionId: string): Promise<void>;
  removeWarm(name: string): Promise<void>;
  /** Sandboxes run as `owner` (a root server's unprivileged sandbox user): new workspaces belong to it. */
  setOwner(owner: SandboxUser | undefined): void;
  /** Deletes the warm workspaces and releases the lock (shutdown); the sessions' workspaces stay for the next server. */
  close(): Promise<void>;
}

/** A session whose workspace a previous server left in the state dir. */
export interface RecoveredSession {
  readonly sessionId: string;
  readonly workspace: string;
}

const LOCK_FILE = 'local-backend.pid';
const PRIVATE = 0o700;
/** A claimed warm workspace on its way to `sessions/<id>` (recoverSessions). */
const ADOPTING = '.adopting-';

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

  async prepare(reset = false): Promise<RecoveredSession[]> {
    await mkdir(this.stateDir, { recursive: true, mode: PRIVATE });
    await chmod(this.stateDir, PRIVATE);
    await acquireStateDirLock(join(this.stateDir, LOCK_FILE), this.stateDir, this.self);
    if (reset) await rm(this.sessionsDir, { recursive: true, force: true });
    await mkdir(this.sessionsDir, { recursive: true, mode: PRIVATE });
    const recovered = await this.recoverSessions();
    // Warm agents die with their server and nobody's files are in their workspaces.
    await rm(this.warmDir, { recursive: true, force: true });
    await mkdir(this.warmDir, { mode: PRIVATE });
    return recovered;
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
    // Claimed warm workspaces are sessions' now: moved under sessions/ before warm/ goes.
    await this.recoverSessions();
    await rm(this.warmDir, { recursive: true, force: true });
    await releaseStateDirLock(join(this.stateDir, LOCK_FILE), this.self);
  }

  /**
   * The sessions left in `sessions/`. A claimed warm agent's session (`<id> -> ../warm/<name>`) gets its directory
   * moved into place first, through `.adopting-<id>` so that a crash in between loses nothing. Only what this
   * store itself made is trusted: entries are examined with lstat and nothing below `<id>/` is followed.
   */
  private async recoverSessions(): Promise<RecoveredSession[]> {
    const recovered: RecoveredSession[] = [];
    const names = await readdir(this.sessionsDir);
    for (const name of names.filter((entry) => entry.startsWith(ADOPTING))) {
      // A move cut short: the warm directory is already staged, the link to it may still be there.
      const sessionId = name.slice(ADOPTING.length);
      if ((await lstat(join(this.sessionsDir, sessionId)).catch(() => undefined))?.isSymbolicLink()) await rm(join(this.sessionsDir, sessionId));
      await rename(join(this.sessionsDir, name), join(this.sessionsDir, sessionId));
      if (!names.includes(sessionId)) names.push(sessionId);
    }
    for (const sessionId of names.filter((entry) => !entry.startsWith('.'))) {
      const dir = join(this.sessionsDir, sessionId);
      const kind = await lstat(dir).catch(() => undefined);
      if (kind?.isSymbolicLink()) await this.moveClaimedWarm(sessionId);
      if ((await lstat(join(dir, 'workspace')).catch(() => undefined))?.isDirectory()) {
        recovered.push({ sessionId, workspace: join(dir, 'workspace') });
      } else {
        await rm(dir, { recursive: true, force: true });
      }
    }
    return recovered;
  }

  private async moveClaimedWarm(sessionId: string): Promise<void> {
    const link = join(this.sessionsDir, sessionId);
    const warmName = /^\.\.\/warm\/([^/]+)$/.exec(await readlink(link))?.[1];
    const staged = join(this.sessionsDir, `${ADOPTING}${sessionId}`);
    if (warmName !== undefined) await rename(join(this.warmDir, warmName), staged).catch(() => undefined);
    await rm(link, { force: true });
    await rename(staged, link).catch(() => undefined);
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
