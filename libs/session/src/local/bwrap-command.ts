import { isWithin, SANDBOX_WORKSPACE, STAGED_DIRS, type SandboxView, type ViewMount } from './sandbox-view.js';

/** The outer level's tmpfs the agent's files are copied into (never visible in the sandbox under this name). */
const STAGE = '/.stage';

/**
 * The network a sandbox gets once `auto` is resolved (docs/local-backend.md "Network"); `proxy` is `none`'s empty
 * namespace, with the egress gateway's socket mounted in (docs/egress.md).
 */
export type SandboxNetworkMode = 'isolated' | 'host' | 'none' | 'proxy';

/** An unprivileged identity for sandboxes of a server running as root (docs/local-backend.md "Sandbox user"). */
export interface SandboxUser {
  readonly uid: number;
  readonly gid: number;
}

export interface BwrapCommandInput {
  bwrapPath: string;
  /** util-linux `setpriv`, used only with `dropTo`. */
  setprivPath: string;
  view: SandboxView;
  network: SandboxNetworkMode;
  /** Set when the server runs as root: the sandbox runs as this user instead. */
  dropTo?: SandboxUser;
  /** The server's own uid/gid: a server that is not root runs its sandboxes as itself. */
  serverUser: SandboxUser;
  /** Outer bubblewrap writes its child's pid here (slirp4netns attaches to that process's namespaces). */
  infoFd?: number;
  /** Size of each private tmpfs by path (bounds/sandbox-bounds.ts `tmpfsSizes`); an absent one is unsized. */
  tmpfsSizes?: Readonly<Record<string, number>>;
  /** One descriptor per `view.files` entry, carrying its content. */
  fileFds: readonly number[];
  command: readonly string[];
}

/**
 * Two bubblewrap levels (docs/local-backend.md "How a sandbox is built"), because one cannot do both:
 *
 * - the outer one builds the filesystem view from host paths (as the server user, so it can reach a state dir
 *   under a private home) and, unless the network is shared, a network namespace owned by a user namespace the
 *   server user owns, so slirp4netns can join it from outside. A server that is not root maps itself to uid 0 of
 *   that user namespace and keeps its capabilities there: slirp4netns, once it has joined, becomes uid 0 of it
 *   (`setegid(0)`, or it gives up), and the inner bubblewrap needs them to map the sandbox back to the server's
 *   uid. Without `--uid 0`, bubblewrap maps the user to 0 anyway (to mount devpts for `--dev`) and then nests a
 *   second user namespace to map it back — the network namespace stays owned by the first, which no process is
 *   in, and slirp4netns may not enter it: such a server had no sandbox network at all. Those capabilities reach
 *   only namespaces the server user owns (never the host's); a root server's outer level is more privileged;
 * - the inner one, started as the sandbox user (root servers: via `setpriv`, since a user namespace made by
 *   root cannot map anyone else), adds the user namespace with nested user namespaces disabled, the pid, ipc, uts
 *   and cgroup namespaces, a new session and no capabilities (C-SEC-3), and re-binds only the view's own paths.
 */
export function buildBwrapCommand(input: BwrapCommandInput): { command: string; args: string[] } {
  // Own pid namespace for the outer level too: when its launcher dies (the server was killed), its pid 1 dies
  // and the kernel kills everything in the namespace. Parent-death signals alone do not reach a root server's
  // sandboxes: the outer launcher drops its capabilities, so it may not signal the sandbox user.
  const outer = ['--die-with-parent', '--unshare-pid'];
  if (input.dropTo === undefined) outer.push('--unshare-user', '--uid', '0', '--gid', '0', '--cap-add', 'ALL');
  if (input.network !== 'host') outer.push('--unshare-net');
  if (input.infoFd !== undefined) outer.push('--info-fd', String(input.infoFd));
  outer.push(...parentDirs(input.view.mounts.map((mount) => mount.dest)));
  for (const mount of input.view.mounts) {
    if (mount.kind === 'symlink') outer.push('--symlink', mount.target, mount.dest);
    else outer.push(mount.kind === 'bind' ? '--bind' : '--ro-bind', mount.source, mount.dest);
  }
  // A proc mount in a user namespace needs a fully visible procfs in its mount namespace: the host's, which the
  // inner level then replaces with its own (the sandbox never sees it). The inner bubblewrap builds its root on
  // /tmp, so that must exist.
  outer.push('--dev', '/dev', '--bind', '/proc', '/proc', '--tmpfs', '/tmp');
  const staged = stagedDirs(input.view);
  if (staged.length > 0) outer.push('--tmpfs', STAGE);
  outer.push('--remount-ro', '/', '--');
  // The copy runs before setpriv, as the outer level's user; modes are kept so a dropped sandbox user reads them.
  if (staged.length > 0) outer.push('/bin/sh', '-c', `cp -R --preserve=mode -- ${staged.join(' ')} ${STAGE}/ && exec "$@"`, 'sh');
  if (input.dropTo !== undefined) {
    outer.push(input.setprivPath, `--reuid=${input.dropTo.uid}`, `--regid=${input.dropTo.gid}`, '--clear-groups', '--');
  }
  return { command: input.bwrapPath, args: [...outer, input.bwrapPath, ...innerArgs(input)] };
}

function innerArgs(input: BwrapCommandInput): string[] {
  // The sandbox's uid: its own when setpriv dropped to it, else the server's (uid 0 of the outer level).
  const self = input.dropTo === undefined ? ['--uid', String(input.serverUser.uid), '--gid', String(input.serverUser.gid)] : [];
  const args = [
    '--unshare-user', ...self, '--disable-userns', '--unshare-pid', '--unshare-ipc', '--unshare-uts', '--unshare-cgroup',
    '--hostname', 'cli-mcp-sandbox', '--die-with-parent', '--new-session', '--cap-drop', 'ALL',
  ];
  const staged = stagedDirs(input.view);
  const mounts = input.view.mounts.filter((mount) => !staged.some((dir) => isWithin(mount.dest, dir)));
  args.push(...parentDirs([...mounts.map((mount) => mount.dest), ...staged]));
  for (const dir of staged) args.push('--ro-bind', `${STAGE}/${dir.slice(dir.lastIndexOf('/') + 1)}`, dir);
  for (const mount of mounts) {
    if (mount.kind === 'symlink') args.push('--symlink', mount.target, mount.dest);
    else args.push(mount.kind === 'bind' ? '--bind' : '--ro-bind', mount.dest, mount.dest);
  }
  args.push('--dev', '/dev', '--proc', '/proc');
  for (const dir of input.view.privateDirs) {
    // bubblewrap creates a tmpfs's mount point but not its parents (/var of /var/tmp).
    const parent = dir.slice(0, dir.lastIndexOf('/'));
    if (parent !== '' && !args.includes(parent)) args.push('--dir', parent);
    const size = input.tmpfsSizes?.[dir];
    if (size !== undefined) args.push('--size', String(size));
    args.push('--tmpfs', dir);
  }
  input.view.files.forEach((file, index) => args.push(file.writable ? '--bind-data' : '--ro-bind-data', String(input.fileFds[index]), file.dest));
  args.push('--remount-ro', '/');
  if (input.view.mounts.some((mount) => mount.dest === SANDBOX_WORKSPACE)) args.push('--chdir', SANDBOX_WORKSPACE);
  args.push('--', ...input.command);
  return args;
}

/**
 * The agent's directories that the view fills from host paths. The outer level binds those paths, copies them into
 * its own tmpfs, and the inner level binds the copies: mountinfo's "root" field of a bind mount is the mounted
 * directory's path on its file system, so a bind of the checkout's `dist/sandbox-agent` would name the checkout
 * however it were reached (bind-fd, O_PATH), while a tmpfs copy shows only `/agent` (docs/security.md).
 */
function stagedDirs(view: SandboxView): string[] {
  const fromHost = (dir: string) => (mount: ViewMount) => mount.kind !== 'symlink' && isWithin(mount.dest, dir);
  return STAGED_DIRS.filter((dir) => view.mounts.some(fromHost(dir)));
}

/**
 * bubblewrap creates missing parents of a mount point 0700, owned by whoever runs it, which the sandbox user could
 * not traverse (`/.cli-mcp` above the agent's files): create them 0755 first.
 */
function parentDirs(mountDests: readonly string[]): string[] {
  const dests = new Set(mountDests);
  const parents: string[] = [];
  for (const dest of dests) {
    for (let dir = dest.slice(0, dest.lastIndexOf('/')); dir !== ''; dir = dir.slice(0, dir.lastIndexOf('/'))) {
      if (!dests.has(dir) && !parents.includes(dir)) parents.push(dir);
    }
  }
  return parents.sort((a, b) => a.length - b.length).flatMap((dir) => ['--perms', '0755', '--dir', dir]);
}
