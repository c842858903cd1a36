import { dirname, join } from 'node:path';
import type { RootEntry } from './host-fs.js';
import type { AgentEndpoint } from './agent-endpoint.js';
import type { LaunchSpec } from './process-launcher.js';

/** PATH inside sandboxes: system directories only, never the server's PATH (C-AUTH-2: no server env leaks). */
export const SANDBOX_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';
/** Where the workspace appears inside a bwrap sandbox. */
export const SANDBOX_WORKSPACE = '/workspace';
/** Host variables a sandbox may inherit: locale and time zone only. */
export const PASSTHROUGH_ENV = ['LANG', 'LANGUAGE', 'LC_ALL', 'LC_CTYPE', 'LC_MESSAGES', 'TZ'] as const;
/** Variables `extraEnv` cannot override: the agent's own configuration. */
const RESERVED_ENV = /^(SANDBOX_|HOME$|NODE_OPTIONS$)/;

export interface AgentEnvInput {
  /** Workspace as the agent sees it (`/workspace` under bwrap, the host path otherwise). */
  workdir: string;
  /** Absent for warm agents: they start unassigned and get their token via `/assign`. */
  token?: string;
  hostEnv: Record<string, string | undefined>;
  extraEnv?: Record<string, string>;
  /** How the agent listens (agent-endpoint.ts): e.g. `SANDBOX_AGENT_SOCKET`. */
  endpointEnv?: Readonly<Record<string, string>>;
}

/** The agent's complete environment, built from an allow-list. */
export function buildAgentEnv(input: AgentEnvInput): Record<string, string> {
  const env: Record<string, string> = { PATH: SANDBOX_PATH };
  for (const name of PASSTHROUGH_ENV) {
    const value = input.hostEnv[name];
    if (value !== undefined) env[name] = value;
  }
  for (const [name, value] of Object.entries(input.extraEnv ?? {})) {
    if (!RESERVED_ENV.test(name)) env[name] = value;
  }
  Object.assign(env, {
    HOME: input.workdir,
    TMPDIR: '/tmp',
    SANDBOX_AGENT_HOST: '127.0.0.1',
    SANDBOX_AGENT_PORT: '0',
    SANDBOX_READY_FD: '3',
    SANDBOX_WORKDIR: input.workdir,
    SANDBOX_OUTPUT_DIR: join(input.workdir, '.cli-mcp'),
    SANDBOX_EXIT_WITH_PARENT: '1',
    // The agent logs JSON to stderr, which the backend only keeps a tail of for crash reports.
    SANDBOX_LOG_LEVEL: 'warn',
  }, input.endpointEnv);
  if (input.token !== undefined) env.SANDBOX_AUTH_TOKEN = input.token;
  return env;
}

export interface BwrapPlan {
  bwrapPath: string;
  rootEntries: RootEntry[];
  /** Host directories replaced by an empty tmpfs before `keep` is re-bound (the server user's home). */
  maskFirst: string[];
  /** Directories re-bound read-only although they lie under a mask (node install, agent project). */
  keep: string[];
  /** Masked after `keep`, so they stay hidden even inside a kept tree (state dir, hidden dirs). */
  maskLast: string[];
  /** Files replaced by /dev/null (e.g. a key file outside the masked directories). */
  hideFiles: string[];
}

/** Inside-the-sandbox paths the root listing must not re-create: bwrap provides them fresh. */
const FRESH_ROOT_ENTRIES = new Set(['proc', 'dev', 'tmp', 'workspace']);

/**
 * bwrap arguments (docs/local-backend.md "Isolation"): new pid/ipc/uts namespaces and session, no capabilities,
 * a read-only copy of `/` (entry by entry, so `/workspace` can be created), private /dev, /proc and /tmp, the
 * private places masked, the workspace bound read-write at /workspace, the endpoint's arguments (with
 * `--local-network none`: a network namespace and the socket directory), then `/` remounted read-only.
 */
export function buildBwrapArgs(plan: BwrapPlan, workspaceHostDir: string, endpointArgs: readonly string[] = []): string[] {
  const args = [
    '--die-with-parent', '--unshare-pid', '--unshare-ipc', '--unshare-uts', '--hostname', 'cli-mcp-sandbox',
    '--new-session', '--cap-drop', 'ALL',
  ];
  for (const entry of plan.rootEntries) {
    if (FRESH_ROOT_ENTRIES.has(entry.name)) continue;
    const path = `/${entry.name}`;
    if (entry.symlinkTarget !== undefined) args.push('--symlink', entry.symlinkTarget, path);
    else args.push('--ro-bind', path, path);
  }
  args.push('--dev', '/dev', '--proc', '/proc', '--tmpfs', '/tmp');
  for (const dir of usable(plan.maskFirst)) args.push('--tmpfs', dir);
  // /tmp is always a fresh tmpfs, so an install (node, the agent) living under /tmp must be re-bound like one
  // under the masked home (a checkout in /tmp is common for CI).
  const masked = ['/tmp', ...usable(plan.maskFirst)];
  for (const dir of plan.keep) {
    if (masked.some((mask) => isWithin(dir, mask))) args.push('--ro-bind', dir, dir);
  }
  for (const dir of usable(plan.maskLast)) args.push('--tmpfs', dir);
  for (const file of plan.hideFiles) args.push('--ro-bind', '/dev/null', file);
  args.push('--bind', workspaceHostDir, SANDBOX_WORKSPACE, ...endpointArgs, '--remount-ro', '/', '--chdir', SANDBOX_WORKSPACE);
  return args;
}

export interface LaunchInput {
  isolation: 'bwrap' | 'none';
  nodePath: string;
  agentEntry: string;
  workspaceHostDir: string;
  token?: string;
  hostEnv: Record<string, string | undefined>;
  extraEnv?: Record<string, string>;
  bwrap?: BwrapPlan;
  endpoint?: Pick<AgentEndpoint, 'env' | 'bwrapArgs'>;
}

export function buildLaunchSpec(input: LaunchInput): LaunchSpec {
  if (input.isolation === 'none') {
    const env = buildAgentEnv({ ...envInput(input), workdir: input.workspaceHostDir });
    return { command: input.nodePath, args: [input.agentEntry], env, cwd: input.workspaceHostDir };
  }
  if (!input.bwrap) throw new Error('bwrap isolation needs a bwrap plan');
  const env = buildAgentEnv({ ...envInput(input), workdir: SANDBOX_WORKSPACE });
  return {
    command: input.bwrap.bwrapPath,
    args: [...buildBwrapArgs(input.bwrap, input.workspaceHostDir, input.endpoint?.bwrapArgs), input.nodePath, input.agentEntry],
    env,
    cwd: input.workspaceHostDir,
  };
}

function envInput(input: LaunchInput): Omit<AgentEnvInput, 'workdir'> {
  return { token: input.token, hostEnv: input.hostEnv, extraEnv: input.extraEnv, endpointEnv: input.endpoint?.env };
}

/** A mask of `/` (or an empty path) would hide the whole system: never emitted. */
function usable(dirs: string[]): string[] {
  return dirs.filter((dir) => dir.length > 1 && dir.startsWith('/'));
}

export function isWithin(path: string, dir: string): boolean {
  return path === dir || path.startsWith(dir.endsWith('/') ? dir : `${dir}/`);
}

/** The install prefix of a node binary (`/usr/bin/node` → `/usr`, `~/.nvm/versions/node/v20/bin/node` → …/v20). */
export function nodeInstallPrefix(nodeRealPath: string): string {
  return dirname(dirname(nodeRealPath));
}
