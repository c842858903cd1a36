import type { AgentClient } from '@cli-mcp/agent-client';
import type { Dialer, EgressMetrics, Kubeconfig, Resolver } from '@cli-mcp/egress';
import type { Clock } from '@cli-mcp/common';
import type { DiskUsage } from './bounds/disk-usage.js';
import type { ProcessTable } from './bounds/memory-monitor.js';
import type { BoundSetting } from './bounds/sandbox-bounds.js';
import type { AgentEndpoints } from './agent-endpoint.js';
import type { SandboxUser } from './bwrap-command.js';
import type { CgroupFs } from './cgroup-limits.js';
import type { NetworkProbe } from './network-probe.js';
import type { NetworkAttacher } from './slirp-network.js';
import type { SessionMetrics } from '../session-metrics.js';
import type { CommandRunner } from './command-runner.js';
import type { HostFs } from './host-fs.js';
import type { ProcessLauncher } from './process-launcher.js';
import type { WorkspaceStore } from './workspace-store.js';

/** `auto`: bubblewrap when it is installed and works, else none (logged). */
export type LocalIsolation = 'auto' | 'bwrap' | 'none';
/**
 * `isolated`: own network namespace with outbound access through slirp4netns, no way to the host's loopback;
 * `none`: own empty network namespace; `proxy`: own loopback-only namespace whose only way out is the egress
 * gateway (docs/egress.md, C-EGR-1); `host`: the host's network; `auto`: isolated where slirp4netns works, else
 * host with a warning (docs/local-backend.md "Network", C-SEC-2). The server's configuration turns `auto` into
 * `proxy` when an egress flag is given.
 */
export type LocalNetwork = 'auto' | 'isolated' | 'host' | 'none' | 'proxy';

/**
 * The egress of `--local-network proxy` (docs/egress.md), as the server's configuration validated it: the
 * routes and where the audit goes. Reading and checking the kubeconfig is the configuration's; nothing here is
 * checked again.
 */
export interface LocalEgressConfig {
  /** `--egress-allow`: canonical `host:port` authorities. */
  readonly allow: readonly string[];
  /** `--egress-kubeconfig`: its path and its parsed content, whose routes the configuration checked. */
  readonly kubeconfig?: { readonly path: string; readonly config: Kubeconfig };
  /** `--egress-audit-log`: a file the audit lines are appended to (0600); unset = no audit file. */
  readonly auditLog?: string;
}

export type SessionEndReason = 'released' | 'idle' | 'crashed';

export interface LocalBackendLogger {
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
}

/** The agent calls the local backend makes itself (claiming warm agents, liveness probes). */
export type LocalAgentPort = Pick<AgentClient, 'assign' | 'health' | 'output'>;

/**
 * The local backend's configuration: values the server validated once, from its flags (C-CFG-1, issue 19
 * item 4). Nothing here is checked again.
 */
export interface LocalBackendConfig {
  /** Root of the backend's state: `<stateDir>/sessions/<id>/workspace`, `<stateDir>/warm/…`. Made 0700. */
  stateDir: string;
  /** HMAC key: each agent's token is HMAC(key, session id) (C-AUTH-1). */
  hmacKey: Buffer;
  /** `--local-isolation`; default `auto`. */
  isolation?: LocalIsolation;
  /** `--local-network`; default `auto`. */
  network?: LocalNetwork;
  /** `--local-ro-bind`: extra host paths sandboxes see read-only (never the state dir or a key file). */
  readOnlyBinds?: string[];
  /**
   * Bounds of every sandbox (bounds/, docs/local-backend.md "Bounds"): `--local-max-processes`,
   * `--local-max-memory`, `--local-max-disk`, `--local-max-output`. Unset: the default; `'off'`: no bound.
   */
  maxProcesses?: BoundSetting;
  maxMemoryBytes?: BoundSetting;
  maxDiskBytes?: BoundSetting;
  maxOutputBytes?: BoundSetting;
  /** The server's `--default-timeout` / `--max-timeout` in seconds, delivered to every agent (C-AG-14). */
  defaultTimeoutSeconds?: number;
  maxTimeoutSeconds?: number;
  /**
   * `--local-reset-state`: delete the workspaces an earlier server left instead of adopting them. Default false:
   * a restart keeps every session's files (issue 22).
   */
  resetState?: boolean;
  /** A session without activity (exec, in-flight command) this long is released; default 30 min. */
  idleTimeoutMs?: number;
  /** `--max-sessions`; default 32. Warm agents do not count. */
  maxSessions?: number;
  /** Unassigned agents kept started; default 0. */
  warmPoolSize?: number;
  /** Bound on spawn → ready; default 30 s. */
  readyTimeoutMs?: number;
  /** Secret files (the HMAC key, the auth token file): `--local-ro-bind` may not expose them. */
  secretPaths?: string[];
  /** Extra variables for every sandbox (e.g. a PATH with more tools). `SANDBOX_*` and `HOME` cannot be set. */
  extraEnv?: Record<string, string>;
  /** With `network: 'proxy'`: the gateway's routes and audit (default: no route, no audit file). */
  egress?: LocalEgressConfig;
}

/**
 * What the local backend runs on besides its configuration: ports, tools' paths and other seams, each with a
 * production default. Tests replace them; the server passes only the agent client, metrics and logger.
 */
export interface LocalBackendDeps {  /** Built agent entry; default the bundle `dist/sandbox-agent/main.js` next to this compiled lib. */
  agentEntry?: string;
  /** Node binary that runs the agent; default `process.execPath`. */
  nodePath?: string;
  /**
   * Who sandbox commands run as under bubblewrap: default the server's user, or 65534 (nobody) when the server
   * runs as root (docs/local-backend.md "Sandbox user").
   */
  sandboxUser?: SandboxUser | 'server';
  /** How often each live workspace is measured against `maxDiskBytes`; default 2 s. */
  diskCheckIntervalMs?: number;
  /** Measures a workspace; default a `du`-like walk (bounds/disk-usage.ts). A port for tests. */
  diskUsage?: DiskUsage;
  /** The host's processes for the memory monitor of bounds layer 3; default `/proc`. A port for tests. */
  processTable?: ProcessTable;
  /** The host's RAM, which sizes the default memory bound; default `os.totalmem()`. A port for tests. */
  hostMemoryBytes?: number;
  /** Paths of `systemd-run` and util-linux `prlimit` (bounds layers 1 and 3); default from PATH. */
  systemdRunPath?: string;
  prlimitPath?: string;
  /** How agents listen; default from `network` (agent-endpoint.ts). A port for tests. */
  endpoints?: AgentEndpoints;
  /** SIGTERM → SIGKILL grace when stopping an agent; default 5 s. */
  stopGraceMs?: number;
  /** Host environment to take the allow-listed locale variables from; default `process.env`. */
  hostEnv?: Record<string, string | undefined>;
  /** Path of bwrap; default `bwrap` from PATH. */
  bwrapPath?: string;
  /** Path of slirp4netns; default `slirp4netns` from PATH. */
  slirpPath?: string;
  /** Path of util-linux `setpriv` (root servers drop to the sandbox user with it); default `setpriv`. */
  setprivPath?: string;
  /** cgroup files for the limits; a port for tests. */
  cgroupFs?: CgroupFs;
  /** How `isolated` sandboxes get their network; default slirp4netns. A port for tests. */
  networkAttacher?: NetworkAttacher;
  /**
   * Whether an isolated network can really be attached here, checked once at start (network-probe.ts); default:
   * a throw-away sandbox gets slirp4netns, unless a test fakes `networkAttacher`. A port for tests.
   */
  networkProbe?: NetworkProbe;
  /**
   * Observes the end of a session's agent: `released` (DELETE), `idle` (reaped), `crashed` (exited by itself;
   * the next command recreates it). Called after the process has exited. Must not throw.
   */
  onSessionEnded?: (sessionId: string, reason: SessionEndReason) => void;
  agent?: LocalAgentPort;
  metrics?: SessionMetrics;
  /** The egress gateway's metrics, on the server's registry (`PromEgressMetrics`); default none. */
  egressMetrics?: EgressMetrics;
  /** How the egress gateway resolves names and dials addresses; default DNS and TCP. Ports for tests. */
  egressResolver?: Resolver;
  egressDialer?: Dialer;
  logger?: LocalBackendLogger;
  clock?: Clock;
  launcher?: ProcessLauncher;
  commandRunner?: CommandRunner;
  hostFs?: HostFs;
  workspaces?: WorkspaceStore;
}

/** Both, as the backend's parts read them. */
export type LocalBackendOptions = LocalBackendConfig & LocalBackendDeps;

export const LOCAL_DEFAULTS = {
  idleTimeoutMs: 30 * 60_000,
  maxSessions: 32,
  warmPoolSize: 0,
  readyTimeoutMs: 30_000,
  stopGraceMs: 5_000,
  diskCheckIntervalMs: 2_000,
  /** Liveness probe of an existing agent before it is handed out again. */
  probeTimeoutMs: 2_000,
  /** How long a successful `bash -c true` / bwrap health probe is reused (C-HTTP-2). */
  healthCacheMs: 10_000,
} as const;
