import type { AgentEndpoints } from './agent-endpoint.js';
import type { LocalEgress } from './egress/local-egress.port.js';
import type { Clock } from '@cli-mcp/common';
import { planBounds, tmpfsSizeProblem, type BoundsPlan } from './bounds/bounds-plan.js';
import { DiskMonitor } from './bounds/disk-monitor.js';
import { walkDiskUsage } from './bounds/disk-usage.js';
import { MEMORY_CHECK_INTERVAL_MS } from './bounds/bounds-plan.js';
import { MemoryMonitor, procProcessTable } from './bounds/memory-monitor.js';
import { resolveBounds, tmpfsSizes, type SandboxBounds } from './bounds/sandbox-bounds.js';
import type { CommandRunner } from './command-runner.js';
import type { HostFs } from './host-fs.js';
import type { SandboxPosture } from './isolation.js';
import type { ProbeCommand } from './local-health.js';
import { LOCAL_DEFAULTS, type LocalAgentPort, type LocalBackendLogger, type LocalBackendOptions } from './local-backend.options.js';
import { NodeProcessLauncher } from './node-process-launcher.js';
import { planSandboxes, ROOT_SANDBOX_USER } from './sandbox-plan.js';
import { SandboxSpawner } from './sandbox-spawner.js';
import { WarmClaimer } from './warm-claimer.js';
import type { WorkspaceStore } from './workspace-store.js';

/** What a started local backend runs on: the resolved posture, the spawner, the warm pool, the health probe. */
export interface SandboxRuntime {
  posture: SandboxPosture;
  /** The bounds in force and how (`/health`, issue 22). */
  bounds: Pick<BoundsPlan, 'report' | 'warnings'>;
  spawner: SandboxSpawner;
  claimer?: WarmClaimer;
  probe?: ProbeCommand;
  /** How agents are reached; closed at shutdown. */
  endpoints: AgentEndpoints;
  /** With `--local-network proxy`: the egress gateway (docs/egress.md); closed first at shutdown. */
  egress?: LocalEgress;
}

export interface RuntimeDeps {
  agentEntry: string;
  agent: LocalAgentPort;
  clock: Clock;
  runner: CommandRunner;
  hostFs: HostFs;
  workspaces: WorkspaceStore;
  logger: LocalBackendLogger;
  lifetime: AbortSignal;
}

/**
 * Once, at start (the state dir already prepared): plans the sandboxes (sandbox-plan.ts), logs every warning
 * about what is not isolated (C-SEC-4), gives workspaces to the sandbox user, and wires the spawner and the warm
 * pool (filled by the caller).
 */
export async function startSandboxRuntime(options: LocalBackendOptions, deps: RuntimeDeps): Promise<SandboxRuntime> {
  const sandboxUser = options.sandboxUser ?? (process.getuid?.() === 0 ? ROOT_SANDBOX_USER : 'server');
  const nodePath = options.nodePath ?? process.execPath;
  const bounds = resolveBounds(options, options.hostMemoryBytes);
  const bwrapPath = options.bwrapPath ?? 'bwrap';
  const sizeProblem = bounds.memoryBytes === undefined || options.isolation === 'none' ? undefined : await tmpfsSizeProblem(deps.runner, bwrapPath);
  const plan = await planSandboxes({
    isolation: options.isolation ?? 'auto', network: options.network ?? 'auto',
    sandboxUser: sandboxUser === 'server' ? undefined : sandboxUser,
    serverUser: { uid: process.getuid?.() ?? 0, gid: process.getgid?.() ?? 0 },
    bwrapPath, slirpPath: options.slirpPath ?? 'slirp4netns',
    setprivPath: options.setprivPath ?? 'setpriv', agentEntry: deps.agentEntry,
    stateDir: deps.workspaces.stateDir, readOnlyBinds: options.readOnlyBinds ?? [], tmpfsSizes: sizeProblem === undefined ? tmpfsSizes(bounds.memoryBytes) : undefined, secretPaths: options.secretPaths ?? [],
    runner: deps.runner, hostFs: deps.hostFs, endpoints: options.endpoints, attacher: options.networkAttacher,
    networkProbe: options.networkProbe,
  });
  const { posture } = plan;
  deps.workspaces.setOwner(posture.isolation === 'bwrap' && posture.user !== 'server' ? posture.user : undefined);
  await plan.endpoints.prepare();
  const egress = posture.network === 'proxy' ? await startEgress(options, plan.endpoints, deps) : undefined;
  const boundsPlan = await planBounds({
    bounds, runner: deps.runner, cgroupFs: options.cgroupFs, systemdRunPath: options.systemdRunPath, prlimitPath: options.prlimitPath,
  });
  const report = posture.isolation === 'bwrap'
    ? { ...boundsPlan.report, ...(sizeProblem ? { tmp: 'off (this bubblewrap has no --size)' } : {}) }
    : { ...boundsPlan.report, tmp: 'off (no isolation: the host\'s /tmp)' };
  const boundsWarnings = [...boundsPlan.warnings, ...(sizeProblem && posture.isolation === 'bwrap' ? [sizeProblem] : [])];
  for (const warning of posture.warnings) deps.logger.warn(warning);
  deps.logger.info('local sandbox bounds', report);
  for (const warning of boundsWarnings) deps.logger.warn(warning);
  const diskMonitor = bounds.diskBytes === undefined ? undefined : new DiskMonitor({
    limitBytes: bounds.diskBytes, intervalMs: options.diskCheckIntervalMs ?? LOCAL_DEFAULTS.diskCheckIntervalMs, usage: options.diskUsage ?? walkDiskUsage,
  });
  const memoryMonitor = boundsPlan.layer === 'rlimit' && bounds.memoryBytes !== undefined
    ? new MemoryMonitor({ limitBytes: bounds.memoryBytes, intervalMs: MEMORY_CHECK_INTERVAL_MS, table: options.processTable ?? procProcessTable })
    : undefined;
  const spawner = new SandboxSpawner({
    ...plan,
    egress,
    bounds: boundsPlan,
    diskMonitor,
    memoryMonitor,
    launch: {
      nodePath, agentEntry: deps.agentEntry, hostEnv: options.hostEnv ?? process.env, extraEnv: { ...options.extraEnv, ...egress?.sandboxEnv },
      agentEnv: { ...agentTimeouts(options.defaultTimeoutSeconds, options.maxTimeoutSeconds), ...outputBound(bounds), ...egress?.agentEnv },
    },
  }, {
    launcher: options.launcher ?? new NodeProcessLauncher(), clock: deps.clock, metrics: options.metrics,
    readyTimeoutMs: options.readyTimeoutMs ?? LOCAL_DEFAULTS.readyTimeoutMs, logger: deps.logger,
  });
  const warmPoolSize = options.warmPoolSize ?? LOCAL_DEFAULTS.warmPoolSize;
  const claimer = warmPoolSize > 0
    ? new WarmClaimer(warmPoolSize, {
      clock: deps.clock, spawner, workspaces: deps.workspaces, agent: deps.agent, logger: deps.logger, lifetime: deps.lifetime,
    })
    : undefined;
  return {
    posture, bounds: { report, warnings: boundsWarnings }, spawner, claimer, probe: plan.healthProbe, endpoints: plan.endpoints, egress,
  };
}

/** Loaded only for `--local-network proxy`: the gateway's TLS and X.509 code stays out of every other server. */
async function startEgress(options: LocalBackendOptions, endpoints: AgentEndpoints, deps: RuntimeDeps): Promise<LocalEgress> {
  if (!endpoints.bindListener) throw new Error('--local-network proxy needs agent endpoints that can bind the gateway sockets');
  const { startLocalEgress } = await import('./egress/local-egress.js');
  const egress = await startLocalEgress({
    config: options.egress ?? { allow: [] }, bindListener: (suffix) => endpoints.bindListener!(suffix), hostFs: deps.hostFs,
    metrics: options.egressMetrics, resolver: options.egressResolver, dialer: options.egressDialer,
  });
  deps.logger.info('local egress gateway: sandboxes reach only these routes, through 127.0.0.1:3128', { ...egress.report });
  return egress;
}

/** C-AG-14: the agent's own bounds are the server's, so no hidden lower cap (the agent defaults to 60/300 s). */
export function agentTimeouts(defaultSeconds?: number, maxSeconds?: number): Record<string, string> {
  const env: Record<string, string> = {};
  if (maxSeconds !== undefined) env.SANDBOX_MAX_TIMEOUT_SECONDS = String(maxSeconds);
  const fallback = maxSeconds === undefined ? undefined : Math.min(60, maxSeconds);
  if ((defaultSeconds ?? fallback) !== undefined) env.SANDBOX_DEFAULT_TIMEOUT_SECONDS = String(defaultSeconds ?? fallback);
  return env;
}

const SPILL_NOTE_ROOM = 1024;

/**
 * `--local-max-output` through the agent's own retention (C-MCP-6): each saved stream at most a quarter, the kept
 * ones at most half, so the kept outputs plus the two files of the command being written stay within the bound.
 */
export function outputBound(bounds: SandboxBounds): Record<string, string> {
  if (bounds.outputBytes === undefined) return {};
  return {
    // Less the agent's closing note of a full file (`[cli-mcp: file stopped at …]`, < 100 bytes).
    SANDBOX_SPILL_MAX_FILE_BYTES: String(Math.floor(bounds.outputBytes / 4) - SPILL_NOTE_ROOM),
    SANDBOX_SPILL_MAX_TOTAL_BYTES: String(Math.floor(bounds.outputBytes / 2)),
  };
}
