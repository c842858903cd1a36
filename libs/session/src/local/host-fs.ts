import { constants } from 'node:fs';
import { access, lstat, readdir, readFile, readlink, realpath } from 'node:fs/promises';
import { dirname, join } from 'node:path';

/** A top-level entry of `/`, re-created read-only inside a bwrap sandbox. */
export interface RootEntry {
  name: string;
  /** Set for symlinks (`/bin -> usr/bin`), which are re-created as symlinks. */
  symlinkTarget?: string;
}

/** Read-only questions about the host filesystem (a port, so the launch plan is unit-tested). */
export interface HostFs {
  listRoot(): Promise<RootEntry[]>;
  realpath(path: string): Promise<string>;
  isFile(path: string): Promise<boolean>;
  isDirectory(path: string): Promise<boolean>;
  /** A text file's content (following symlinks); undefined when it cannot be read. */
  readText(path: string): Promise<string | undefined>;
  /** Target of a symlink; undefined when `path` is not one. */
  readlink(path: string): Promise<string | undefined>;
  /** Nearest ancestor directory of `start` (inclusive) that contains `name`, or undefined. */
  findUp(start: string, name: string): Promise<string | undefined>;
}

export class NodeHostFs implements HostFs {
  async listRoot(): Promise<RootEntry[]> {
    const entries: RootEntry[] = [];
    for (const name of await readdir('/')) {
      const stats = await lstat(join('/', name)).catch(() => undefined);
      if (!stats) continue;
      entries.push(stats.isSymbolicLink() ? { name, symlinkTarget: await readlink(join('/', name)) } : { name });
    }
    return entries;
  }

  realpath(path: string): Promise<string> {
    return realpath(path);
  }

  async isFile(path: string): Promise<boolean> {
    return (await lstat(path).catch(() => undefined))?.isFile() ?? false;
  }

  async isDirectory(path: string): Promise<boolean> {
    return (await lstat(path).catch(() => undefined))?.isDirectory() ?? false;
  }

  readText(path: string): Promise<string | undefined> {
    return readFile(path, 'utf8').catch(() => undefined);
  }

  readlink(path: string): Promise<string | undefined> {
    return readlink(path).catch(() => undefined);
  }

  async findUp(start: string, name: string): Promise<string | undefined> {
    for (let dir = start; ; dir = dirname(dir)) {
      if (await access(join(dir, name), constants.F_OK).then(() => true, () => false)) return dir;
      if (dirname(dir) === dir) return undefined;
    }
  }
}
