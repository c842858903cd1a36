import { dirname, join, posix, resolve } from 'node:path';
import type { HostFs, RootEntry } from './host-fs.js';

/** Where the agent's own files appear in a sandbox (C-SEC-1: bound alone, never the checkout around them). */
export const SANDBOX_AGENT_DIR = '/.cli-mcp/agent';
export const SANDBOX_WORKSPACE = '/workspace';
/**
 * The agent's own files, copied per sandbox into a tmpfs instead of bound (bwrap-command.ts): a bind mount's host
 * path shows in the sandbox's `/proc/self/mountinfo` (docs/security.md "What mountinfo shows", issue 22).
 */
export const STAGED_DIRS = [SANDBOX_AGENT_DIR, '/.cli-mcp/node_modules'] as const;

/** Top-level host entries a sandbox sees read-only (docs/local-backend.md "What a sandbox sees"). */
export const SYSTEM_ENTRIES = ['usr', 'bin', 'sbin', 'lib', 'lib32', 'lib64', 'libx32', 'etc', 'opt'] as const;
/** Private, empty, writable per sandbox. `/run` replaces the host's (sockets, D-Bus, container engines). */
export const PRIVATE_DIRS = ['/tmp', '/var/tmp', '/run'] as const;
/** Paths the sandbox layout owns; `--local-ro-bind` may not cover them. */
export const RESERVED_PATHS = ['/', '/workspace', '/.cli-mcp', '/proc', '/dev', ...PRIVATE_DIRS] as const;
/**
 * The agent's native packages and the parts of each it needs at run time: node-pty (tty mode, loaded lazily) and
 * our prctl addon, native/non-dumpable (at start: a non-dumpable agent, issue 22 item 4) — its package.json (whose
 * `main` names the module) and the compiled module, not its sources or build tree.
 */
const RUNTIME_PACKAGES: ReadonlyArray<{ readonly name: string; readonly parts: readonly string[] }> = [
  { name: 'node-pty', parts: ['package.json', 'lib', 'build/Release'] },
  { name: '@cli-mcp/non-dumpable', parts: ['package.json', 'build/Release/non_dumpable.node'] },
];

/** One host-sourced entry of the sandbox's filesystem, in mount order. */
export type ViewMount =
  | { readonly kind: 'ro-bind' | 'bind'; readonly source: string; readonly dest: string }
  | { readonly kind: 'symlink'; readonly target: string; readonly dest: string };

/**
 * A file the sandbox gets with generated content (e.g. its resolv.conf), mounted read-only unless `writable`: a
 * writable one is the sandbox's own copy (in bubblewrap's memory), gone with the sandbox.
 */
export interface ViewFile {
  readonly dest: string;
  readonly content: string;
  readonly writable?: boolean;
}

/** Everything a sandbox can see; nothing else of the host exists in it (deny by default, C-SEC-1). */
export interface SandboxView {
  readonly mounts: readonly ViewMount[];
  readonly files: readonly ViewFile[];
  readonly privateDirs: readonly string[];
  /** Path of the agent entry inside the sandbox. */
  readonly agentEntry: string;
}

/** The per-server part of the view: system paths, agent files, extra binds (planned once at start). */
export interface ViewBase {
  readonly mounts: readonly ViewMount[];
  readonly files: readonly ViewFile[];
  readonly agentEntry: string;
}

export interface ViewBaseInput {
  hostFs: HostFs;
  agentEntry: string;
  /** `--local-ro-bind`, already validated (local-ro-binds.ts). */
  extraReadOnly: readonly string[];
  /** The sandbox's /etc/resolv.conf, when the network mode needs its own (sandbox-dns.ts). */
  resolvConf?: string;
}

/**
 * Plans the server-wide part of the view: the documented system entries of `/` (symlinks stay symlinks, so
 * merged-/usr systems look the same), the agent bundle, node-pty and the prctl addon at fixed paths, then the operator's
 * extra read-only paths. The Node binary is not part of the view (launch-spec.ts execs it from a descriptor).
 */
export async function planViewBase(input: ViewBaseInput): Promise<ViewBase> {
  const { hostFs } = input;
  const mounts: ViewMount[] = systemMounts(await hostFs.listRoot());
  const entryReal = await hostFs.realpath(input.agentEntry).catch(() => resolve(input.agentEntry));
  const bundleDir = dirname(entryReal);
  mounts.push({ kind: 'ro-bind', source: bundleDir, dest: SANDBOX_AGENT_DIR });
  for (const { name, parts } of RUNTIME_PACKAGES) {
    const parent = await hostFs.findUp(bundleDir, `node_modules/${name}`);
    if (parent === undefined) continue;
    for (const part of parts) {
      const source = join(parent, 'node_modules', name, part);
      if ((await hostFs.isFile(source)) || (await hostFs.isDirectory(source))) {
        // Beside the bundle, where a require or import from it looks next (the bundle's own directory is read-only).
        mounts.push({ kind: 'ro-bind', source, dest: posix.join(SANDBOX_AGENT_DIR, '../node_modules', name, part) });
      }
    }
  }
  for (const path of input.extraReadOnly) mounts.push({ kind: 'ro-bind', source: path, dest: path });
  const files = input.resolvConf === undefined ? [] : [{ dest: await resolvConfDest(hostFs), content: input.resolvConf }];
  return { mounts, files, agentEntry: posix.join(SANDBOX_AGENT_DIR, posix.basename(entryReal)) };
}

/** What one sandbox adds to the view besides its workspace (the egress gateway's socket, docs/egress.md). */
export interface SandboxExtras {
  readonly mounts?: readonly ViewMount[];
  readonly files?: readonly ViewFile[];
}

/**
 * The view of one sandbox: the base plus its workspace. The agent's socket is not in it: the agent inherits it
 * (agent-endpoint.ts), so nothing the server connects to lies in a directory the sandbox can write.
 */
export function sandboxView(base: ViewBase, workspace: string, extras: SandboxExtras = {}): SandboxView {
  const own: ViewMount[] = [{ kind: 'bind', source: workspace, dest: SANDBOX_WORKSPACE }, ...(extras.mounts ?? [])];
  return { mounts: [...base.mounts, ...own], files: [...base.files, ...(extras.files ?? [])], privateDirs: PRIVATE_DIRS, agentEntry: base.agentEntry };
}

export function isWithin(path: string, dir: string): boolean {
  return path === dir || path.startsWith(dir.endsWith('/') ? dir : `${dir}/`);
}

function systemMounts(root: readonly RootEntry[]): ViewMount[] {
  const mounts: ViewMount[] = [];
  for (const name of SYSTEM_ENTRIES) {
    const entry = root.find((candidate) => candidate.name === name);
    if (!entry) continue;
    mounts.push(entry.symlinkTarget !== undefined
      ? { kind: 'symlink', target: entry.symlinkTarget, dest: `/${name}` }
      : { kind: 'ro-bind', source: `/${name}`, dest: `/${name}` });
  }
  return mounts;
}

/**
 * Where the generated resolv.conf must go: `/etc/resolv.conf` itself, or — when it is a symlink (systemd-resolved:
 * into `/run`) — its target.
 */
async function resolvConfDest(hostFs: HostFs): Promise<string> {
  const link = await hostFs.readlink('/etc/resolv.conf');
  if (link === undefined) return '/etc/resolv.conf';
  // Mounting onto a symlink mounts onto its target, which must then exist in the sandbox: under /run it lies in
  // the private /run; elsewhere (WSL's /mnt/wsl/…) bubblewrap creates it in the sandbox's own root.
  return posix.resolve('/etc', link).replace(/^\/var\/run\//, '/run/');
}
