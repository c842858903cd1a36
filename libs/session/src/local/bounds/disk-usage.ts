import { lstat, readdir } from 'node:fs/promises';
import { join } from 'node:path';

/** Bytes a directory tree occupies on disk; a port so the monitor is unit-tested without files. */
export type DiskUsage = (dir: string) => Promise<number>;

/**
 * `du`-like walk: allocated blocks (so sparse files count what they use), never following links (a link to a
 * host file costs the workspace nothing and must not be read through, issue 22), each inode once (hard links).
 * Entries that vanish mid-walk are skipped: the sandbox keeps writing while it is measured.
 */
export const walkDiskUsage: DiskUsage = async (root) => {
  const seen = new Set<string>();
  let total = 0;
  const pending = [root];
  while (pending.length > 0) {
    const dir = pending.pop()!;
    let names: string[];
    try {
      names = await readdir(dir);
    } catch {
      continue;
    }
    for (const name of names) {
      const path = join(dir, name);
      const stat = await lstat(path, { bigint: false }).catch(() => undefined);
      if (!stat) continue;
      const key = `${stat.dev}:${stat.ino}`;
      if (seen.has(key)) continue;
      seen.add(key);
      total += stat.blocks * 512;
      if (stat.isDirectory()) pending.push(path);
    }
  }
  return total;
};
