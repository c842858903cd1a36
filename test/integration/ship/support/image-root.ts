import { chmodSync, cpSync, existsSync, lstatSync, mkdirSync, readdirSync, readlinkSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, relative } from 'node:path';
import type { CopyStep, Stage } from './containerfile.js';

/** What a stage's filesystem holds on this machine: `hostDir` stands for the stage's `workdir`. */
export interface StageSource {
  readonly hostDir: string;
  readonly workdir: string;
  /** Why the real stage would not hold `relativePath` (e.g. an app it does not build), or undefined. */
  readonly refuse?: (relativePath: string) => string | undefined;
}

/** The base image's system folders, stood in for by this machine's (bound read-only): what FROM provides. */
export const BASE_SYSTEM_DIRS = ['/usr/bin', '/usr/lib', '/usr/lib64', '/usr/libexec', '/usr/sbin', '/usr/share'].filter((dir) => existsSync(dir));
/** Copied rather than bound: the pod mounts Secrets below it, and the kubelet creates their mount points. */
const BASE_ETC = '/etc';
/** Where the official Node images keep `node` (on the base image's PATH). */
export const BASE_NODE_PATH = '/usr/local/bin/node';
/** The official Node images' PATH. */
export const BASE_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';

/**
 * Assembles the runtime stage's COPY set into `root` as the builder would (C-SHIP-2): a directory source copies
 * its contents, a file lands in a `dest/` folder or at `dest`; symlinks stay links; modes are kept, owner root. A
 * source the stage would not hold fails here, like the build would. `skip` drops COPY steps (to prove that a
 * missing one is caught). Returns the copied destination paths.
 */
export function assembleImageRoot(runtime: Stage, sources: (from: string | undefined, copy: CopyStep) => StageSource, root: string, skip: (copy: CopyStep) => boolean = () => false): string[] {
  const copied: string[] = [];
  for (const copy of runtime.copies) {
    if (skip(copy)) continue;
    const source = sources(copy.from, copy);
    for (const path of copy.sources) {
      const absolute = path.startsWith('/') ? path : join(source.workdir, path);
      const inStage = relative(source.workdir, absolute);
      if (inStage.startsWith('..')) throw new Error(`line ${copy.line}: ${path} is outside the stage's ${source.workdir}`);
      const refusal = source.refuse?.(inStage);
      if (refusal !== undefined) throw new Error(`line ${copy.line}: COPY ${path}: ${refusal}`);
      const host = join(source.hostDir, inStage);
      if (!existsSync(host)) throw new Error(`line ${copy.line}: COPY source ${path} does not exist in stage ${copy.from ?? 'context'}`);
      const isDir = statSync(host).isDirectory();
      const target = join(root, isDir || !copy.destIsDir ? copy.dest : join(copy.dest, basename(host)));
      mkdirSync(dirname(target), { recursive: true, mode: 0o755 });
      cpSync(host, target, { recursive: true, verbatimSymlinks: true, force: true });
      copied.push(target.slice(root.length));
    }
  }
  return copied;
}

/**
 * Adds the base image's layout to `root`: the merged-/usr links, a copy of /etc, mount points for the system
 * folders and for `node`, and the folders the pod mounts (`mountPoints`), all readable by any UID.
 */
export function addBaseLayout(root: string, mountPoints: readonly string[]): void {
  chmodSync(root, 0o755);
  for (const link of ['/bin', '/lib', '/lib64', '/sbin']) {
    if (existsSync(link) && lstatSync(link).isSymbolicLink() && !existsSync(join(root, link))) symlinkSync(readlinkSync(link), join(root, link));
  }
  cpSync(BASE_ETC, join(root, BASE_ETC), { recursive: true, verbatimSymlinks: true });
  for (const dir of [...BASE_SYSTEM_DIRS, '/proc', '/dev', ...mountPoints]) mkdirSync(join(root, dir), { recursive: true, mode: 0o755 });
  mkdirSync(join(root, dirname(BASE_NODE_PATH)), { recursive: true, mode: 0o755 });
  writeFileSync(join(root, BASE_NODE_PATH), '');
}

/** Every file under `dir` (relative, `/`-separated), not following links. */
export function listTree(dir: string, prefix = ''): string[] {
  const out: string[] = [];
  for (const name of existsSync(dir) ? readdirSync(dir) : []) {
    const path = join(dir, name);
    const rel = `${prefix}${name}`;
    if (lstatSync(path).isDirectory()) out.push(...listTree(path, `${rel}/`));
    else out.push(rel);
  }
  return out;
}

