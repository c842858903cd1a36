import { join } from 'node:path';
import { AGENT_NODE_FLAGS } from '@cli-mcp/common';
import type { AgentEndpoint } from './agent-endpoint.js';
import { buildBwrapCommand, type BwrapCommandInput } from './bwrap-command.js';
import { FIRST_EXTRA_FD, type LaunchFd, type LaunchSpec } from './process-launcher.js';
import { SANDBOX_WORKSPACE } from './sandbox-view.js';

/** PATH inside sandboxes: system directories only, never the server's PATH (C-AUTH-2: no server env leaks). */
export const SANDBOX_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';
/** Host variables a sandbox may inherit: locale and time zone only. */
export const PASSTHROUGH_ENV = ['LANG', 'LANGUAGE', 'LC_ALL', 'LC_CTYPE', 'LC_MESSAGES', 'TZ'] as const;
/** Variables `extraEnv` cannot override: the agent's own configuration. */
const RESERVED_ENV = /^(SANDBOX_|HOME$|NODE_OPTIONS$)/;

export interface AgentEnvInput {
  /** Workspace as the agent sees it (`/workspace` under bwrap, the host path otherwise). */
  workdir: string;
  /**
   * The descriptor the agent reads its token from (`SANDBOX_AUTH_TOKEN_FD`); absent for warm agents, which start
   * unassigned and get their token via `/assign`.
   */
  tokenFd?: number;
  hostEnv: Record<string, string | undefined>;
  extraEnv?: Record<string, string>;
  /** How the agent listens (agent-endpoint.ts, e.g. `SANDBOX_AGENT_SOCKET`) and the server's agent settings. */
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
  if (input.tokenFd !== undefined) env.SANDBOX_AUTH_TOKEN_FD = String(input.tokenFd);
  return env;
}

export interface LaunchInput {
  isolation: 'bwrap' | 'none';
  nodePath: string;
  agentEntry: string;
  workspaceHostDir: string;
  token?: string;
  hostEnv: Record<string, string | undefined>;
  extraEnv?: Record<string, string>;
  /** `SANDBOX_*` settings every agent gets (e.g. the server's timeouts, C-AG-14). */
  agentEnv?: Readonly<Record<string, string>>;
  endpoint?: Pick<AgentEndpoint, 'env' | 'listenFd'>;
  /** With `isolation: 'bwrap'`: the sandbox's view and namespaces (bwrap-command.ts). */
  bwrap?: Omit<BwrapCommandInput, 'command' | 'infoFd' | 'fileFds'>;
}

export function buildLaunchSpec(input: LaunchInput): LaunchSpec {
  // The listening socket first, so it is LISTEN_FD whatever follows (agent-endpoint.ts).
  const listenFd = input.endpoint?.listenFd;
  const extraFds: LaunchFd[] = listenFd === undefined ? [] : [{ kind: 'inherit', fd: listenFd }];
  // The token travels on a pipe, never in an environment: under bubblewrap the sandbox's pid 1 (bubblewrap's init)
  // keeps the environment it was started with, and every command can read its /proc/1/environ (issue 20).
  const tokenFd = input.token === undefined ? undefined : FIRST_EXTRA_FD + extraFds.push({ kind: 'data', content: input.token }) - 1;
  if (input.isolation === 'none') {
    const env = buildAgentEnv({ ...envInput(input, tokenFd), workdir: input.workspaceHostDir });
    return { command: input.nodePath, args: [...AGENT_NODE_FLAGS, input.agentEntry], env, cwd: input.workspaceHostDir, extraFds };
  }
  if (!input.bwrap) throw new Error('bwrap isolation needs a sandbox view');
  const env = buildAgentEnv({ ...envInput(input, tokenFd), workdir: SANDBOX_WORKSPACE });
  const infoFd = input.bwrap.network === 'isolated' ? FIRST_EXTRA_FD + extraFds.push({ kind: 'info' }) - 1 : undefined;
  const fileFds = input.bwrap.view.files.map((file) => FIRST_EXTRA_FD + extraFds.push({ kind: 'data', content: file.content }) - 1);
  // The Node binary is not mounted: a bind mount's root field in the sandbox's /proc/self/mountinfo is its host
  // path (a Node under a home or a checkout names them, issue 22 item 3). The sandbox execs it from an inherited
  // descriptor instead, which passes both bubblewrap levels; the kernel needs no path in the sandbox's view for
  // it. bash closes every descriptor beyond 0-2 when it starts (SHELL_SETUP), and the agent is non-dumpable, so no
  // command can read the descriptor's link either.
  const nodeFd = FIRST_EXTRA_FD + extraFds.push({ kind: 'file', path: input.nodePath }) - 1;
  const { command, args } = buildBwrapCommand({
    ...input.bwrap, infoFd, fileFds, command: [`/proc/self/fd/${nodeFd}`, ...AGENT_NODE_FLAGS, input.bwrap.view.agentEntry],
  });
  return { command, args, env, cwd: input.workspaceHostDir, extraFds };
}

function envInput(input: LaunchInput, tokenFd: number | undefined): Omit<AgentEnvInput, 'workdir'> {
  return {
    tokenFd, hostEnv: input.hostEnv, extraEnv: input.extraEnv,
    endpointEnv: { ...input.agentEnv, ...input.endpoint?.env },
  };
}
