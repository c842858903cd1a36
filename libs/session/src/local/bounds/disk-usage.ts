import { existsSync } from 'node:fs';
import { constants, lstat, open, readdir } from 'node:fs/promises';
import { join } from 'node:path';

/** Bytes a directory tree occupies on disk; a port so the monitor is unit-tested without files. */
export type DiskUsage = (dir: string) => Promise<number>;

const OPEN_DIR = constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW;
/** Linux names every open descriptor here; elsewhere (no bubblewrap, so no hostile sandbox) paths are walked. */
const FD_DIR = existsSync('/proc/self/fd') ? '/proc/self/fd' : undefined;

/**
 * `du`-like walk: allocated blocks (so sparse files count what they use), never following links (a link to a
 * host file costs the workspace nothing and must not be read through, issue 22), each inode once (hard links:
 * only their metadata is read, never their content). Entries that vanish mid-walk are skipped: the sandbox keeps
 * writing while it is measured.
 *
 * The sandbox runs while it is measured, so it can replace a directory the walk has just seen with a symlink to a
 * host directory (`/`) before the walk lists it. Each directory is therefore opened with `O_NOFOLLOW` through its
 * parent's open descriptor (`/proc/self/fd/<parent>/<name>`: the parent is the directory already opened, not a
 * path the sandbox can redirect), and its entries are examined through its own descriptor. One descriptor is
 * open per level of depth. `beforeOpen` is the window a sandbox races in (tests put a swap there).
 */
export function diskWalker(beforeOpen: (path: string) => Promise<void> = async () => undefined): DiskUsage {
  return async (root) => {
    const seen = new Set<string>();
    // `path` is how the walk opens the directory; `shown` its path under the root, for `beforeOpen`.
    const walk = async (path: string, shown: string): Promise<number> => {
      const dir = FD_DIR === undefined ? undefined : await open(path, OPEN_DIR).catch(() => null);
      if (dir === null) return 0;
      const base = dir === undefined ? path : join(FD_DIR!, String(dir.fd));
      try {
        const names = await readdir(base).catch(() => [] as string[]);
        let total = 0;
        for (const name of names) {
          const entry = join(base, name);
          const stat = await lstat(entry).catch(() => undefined);
          if (!stat) continue;
          const key = `${stat.dev}:${stat.ino}`;
          if (seen.has(key)) continue;
          seen.add(key);
          total += stat.blocks * 512;
          if (!stat.isDirectory()) continue;
          await beforeOpen(join(shown, name));
          total += await walk(entry, join(shown, name));
        }
        return total;
      } finally {
        await dir?.close();
      }
    };
    return walk(root, root);
  };
}

export const walkDiskUsage: DiskUsage = diskWalker();
