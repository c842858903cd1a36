import { link, readFile, rm, writeFile } from 'node:fs/promises';
import { SessionError, SessionErrorCode } from '../session-error.js';

export interface LockIdentity {
  /** This process's pid, written into the lock. */
  pid: number;
  isAlive(pid: number): boolean;
}

/**
 * One server per state dir (its start-up cleanup would delete another's sessions). The lock file is created
 * exclusively, so of two servers starting together exactly one wins. A lock whose process is
 * dead is taken over under a second exclusive file, so two servers replacing the same stale lock cannot both
 * remove it and both believe they hold it (docs/local-backend.md "State directory").
 */
export async function acquireStateDirLock(path: string, stateDir: string, self: LockIdentity): Promise<void> {
  if (await createExclusive(path, self.pid)) return;
  const holder = await readPid(path);
  if (holder === self.pid) return;
  if (holder !== undefined && self.isAlive(holder)) throw inUse(stateDir, holder);
  await takeOver(path, stateDir, self);
}

/** Removes the lock if this process holds it. */
export async function releaseStateDirLock(path: string, self: Pick<LockIdentity, 'pid'>): Promise<void> {
  if ((await readPid(path)) === self.pid) await rm(path, { force: true });
}

async function takeOver(path: string, stateDir: string, self: LockIdentity): Promise<void> {
  const guard = `${path}.takeover`;
  if (!(await createExclusive(guard, self.pid))) {
    const taker = await readPid(guard);
    if (taker !== undefined && taker !== self.pid && self.isAlive(taker)) throw inUse(stateDir, taker);
    // The taker died mid-takeover (two crashes in a row): its guard is as stale as the lock.
    await rm(guard, { force: true });
    if (!(await createExclusive(guard, self.pid))) throw inUse(stateDir, (await readPid(guard)) ?? 0);
  }
  try {
    // Under the guard nobody else replaces the lock; re-read it, a live server may have won meanwhile.
    const holder = await readPid(path);
    if (holder !== undefined && holder !== self.pid && self.isAlive(holder)) throw inUse(stateDir, holder);
    await rm(path, { force: true });
    if (!(await createExclusive(path, self.pid))) throw inUse(stateDir, (await readPid(path)) ?? 0);
  } finally {
    await rm(guard, { force: true });
  }
}

/**
 * Creates `path` holding `pid`, or returns false when it exists. The content is written to a private file first
 * and hard-linked into place (`link` fails with EEXIST atomically), so a lock is never seen empty.
 */
async function createExclusive(path: string, pid: number): Promise<boolean> {
  const draft = `${path}.${pid}.${process.hrtime.bigint()}`;
  await writeFile(draft, `${pid}\n`, { mode: 0o600, flag: 'wx' });
  try {
    await link(draft, path);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  } finally {
    await rm(draft, { force: true });
  }
}

/** The pid in a lock file; undefined when it is missing or garbage. */
async function readPid(path: string): Promise<number | undefined> {
  const pid = Number.parseInt((await readFile(path, 'utf8').catch(() => '')).trim(), 10);
  return Number.isInteger(pid) && pid > 0 ? pid : undefined;
}

function inUse(stateDir: string, pid: number): SessionError {
  return new SessionError(
    SessionErrorCode.SandboxUnavailable,
    `state directory ${stateDir} is in use by process ${pid}: give each server its own --state-dir`,
  );
}
