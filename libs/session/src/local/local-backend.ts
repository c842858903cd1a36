import { randomBytes } from 'node:crypto';
import { resolve } from 'node:path';
import { AgentClient, AgentError, AgentErrorCode } from '@cli-mcp/agent-client';
import { deriveSessionToken } from '@cli-mcp/auth';
import { systemClock, type Clock } from '../clock.js';
import type { SandboxBackend, SandboxHandle } from '../sandbox-backend.port.js';
import { SessionError, SessionErrorCode } from '../session-error.js';
import type { SessionMetrics } from '../session-metrics.js';
import { NodeCommandRunner, type CommandRunner } from './command-runner.js';
import { defaultAgentEntry } from './default-agent-entry.js';
import { NodeHostFs, type HostFs } from './host-fs.js';
import { IdleReaper } from './idle-reaper.js';
import { resolveIsolation } from './isolation.js';
import { LocalHealth } from './local-health.js';
import { BoundedSet, KeyedMutex } from './keyed-mutex.js';
import { agentEndpoints, type AgentEndpoint, type AgentEndpoints } from './agent-endpoint.js';
import { planBwrap } from './bwrap-plan.js';
import { buildLaunchSpec, type BwrapPlan } from './launch-spec.js';
import {
  LOCAL_DEFAULTS, validateLocalOptions, type LocalAgentPort, type LocalBackendLogger, type LocalBackendOptions, type LocalIsolation,
  type LocalNetwork,
} from './local-backend.options.js';
import { NodeProcessLauncher } from './node-process-launcher.js';
import { describeExit, type AgentProcess, type LaunchSpec, type ProcessLauncher } from './process-launcher.js';
import { agentResponds, startAgentAt, stopAgent, type StartedAgent } from './sandbox-process.js';
import type { SessionEntry, WarmAgent } from './session-entry.js';
import { WarmPool } from './warm-pool.js';
import { FsWorkspaceStore, type WorkspaceStore } from './workspace-store.js';

const LOST_SESSIONS_REMEMBERED = 10_000;
const silentLogger: LocalBackendLogger = { info: () => undefined, warn: () => undefined };

/**
 * The `local` backend: one sandbox-agent process per session on 127.0.0.1 (or on a Unix socket with
 * `--local-network none`), inside bubblewrap when available (docs/local-backend.md). State lives in this process only, so it serves a single server replica.
 */
export class LocalBackend implements SandboxBackend {
  readonly kind = 'local' as const;
  readonly agentEntry: string;
  private readonly nodePath: string;
  private readonly requestedIsolation: LocalIsolation;
  private readonly network: LocalNetwork;
  private readonly endpoints: AgentEndpoints;
  private readonly maxSessions: number;
  private readonly readyTimeoutMs: number;
  private readonly stopGraceMs: number;
  private readonly bwrapPath: string;
  private readonly clock: Clock;
  private readonly agent: LocalAgentPort;
  private readonly launcher: ProcessLauncher;
  private readonly runner: CommandRunner;
  private readonly hostFs: HostFs;
  private readonly workspaces: WorkspaceStore;
  private readonly logger: LocalBackendLogger;
  private readonly metrics?: SessionMetrics;
  private readonly sessions = new Map<string, SessionEntry>();
  private readonly lost = new BoundedSet(LOST_SESSIONS_REMEMBERED);
  private readonly locks = new KeyedMutex();
  private readonly children = new Set<AgentProcess>();
  private readonly reaper: IdleReaper;
  private readonly pool?: WarmPool<WarmAgent>;
  private readonly lifetime = new AbortController();
  private isolationMode?: 'bwrap' | 'none';
  private bwrapPlan?: BwrapPlan;
  private starting?: Promise<void>;
  private prepared = false;
  private stopping?: Promise<void>;
  private readonly health: LocalHealth;
  private readonly goneListeners: Array<(sessionId: string) => void> = [];

  constructor(private readonly options: LocalBackendOptions) {
    const problems = validateLocalOptions(options);
    if (problems.length > 0) {
      throw new SessionError(SessionErrorCode.SandboxUnavailable, `invalid local backend configuration: ${problems.join('; ')}`);
    }
    this.agentEntry = resolve(options.agentEntry ?? defaultAgentEntry());
    this.nodePath = options.nodePath ?? process.execPath;
    this.requestedIsolation = options.isolation ?? 'auto';
    this.maxSessions = options.maxSessions ?? LOCAL_DEFAULTS.maxSessions;
    this.readyTimeoutMs = options.readyTimeoutMs ?? LOCAL_DEFAULTS.readyTimeoutMs;
    this.stopGraceMs = options.stopGraceMs ?? LOCAL_DEFAULTS.stopGraceMs;
    this.bwrapPath = options.bwrapPath ?? 'bwrap';
    this.clock = options.clock ?? systemClock;
    this.agent = options.agent ?? new AgentClient();
    this.launcher = options.launcher ?? new NodeProcessLauncher();
    this.runner = options.commandRunner ?? new NodeCommandRunner();
    this.hostFs = options.hostFs ?? new NodeHostFs();
    this.health = new LocalHealth({
      hostFs: this.hostFs, runner: this.runner, clock: this.clock, agentEntry: this.agentEntry, bwrapPath: this.bwrapPath,
      cacheMs: LOCAL_DEFAULTS.healthCacheMs,
    });
    this.workspaces = options.workspaces ?? new FsWorkspaceStore(options.stateDir);
    this.network = options.network ?? 'host';
    this.endpoints = options.endpoints ?? agentEndpoints(this.network, this.workspaces.stateDir);
    this.logger = options.logger ?? silentLogger;
    this.metrics = options.metrics;
    this.reaper = new IdleReaper(this.clock, options.idleTimeoutMs ?? LOCAL_DEFAULTS.idleTimeoutMs, (id) => this.reapIdle(id));
    const warmPoolSize = options.warmPoolSize ?? LOCAL_DEFAULTS.warmPoolSize;
    if (warmPoolSize > 0) {
      this.pool = new WarmPool<WarmAgent>(warmPoolSize, this.clock, {
        start: () => this.startWarm(),
        onStartFailed: (error) => this.logger.warn('warm sandbox agent failed to start', { error: messageOf(error) }),
      });
    }
  }

  /** Isolation in force once started (`auto` resolved). */
  get isolation(): 'bwrap' | 'none' | undefined {
    return this.isolationMode;
  }

  /** Sessions holding a workspace (live or crashed agent), the count `maxSessions` limits. */
  get activeSessions(): number {
    return this.sessions.size;
  }

  get warmReady(): number {
    return this.pool?.readyCount ?? 0;
  }

  /**
   * Prepares the state dir (lock, stale cleanup), resolves the isolation and fills the warm pool. Idempotent;
   * called lazily by the other methods, or eagerly at boot so configuration errors stop the server.
   */
  start(): Promise<void> {
    this.starting ??= this.prepare();
    return this.starting;
  }

  async acquire(sessionId: string, signal: AbortSignal): Promise<SandboxHandle> {
    await this.start();
    return this.locks.run(sessionId, async () => {
      this.assertOpen();
      // An acquisition is activity: a slow spawn must not make the session look idle (C-CTL-3 analogue).
      const busy = this.reaper.begin(sessionId);
      try {
        return await this.acquireLocked(sessionId, signal);
      } finally {
        busy();
        if (!this.sessions.has(sessionId)) this.reaper.forget(sessionId);
      }
    });
  }

  private async acquireLocked(sessionId: string, signal: AbortSignal): Promise<SandboxHandle> {
    let entry = this.sessions.get(sessionId);
    if (entry?.handle && entry.process && !entry.process.hasExited) {
      if (await agentResponds(this.agent, entry.handle.agentUrl, this.clock, LOCAL_DEFAULTS.probeTimeoutMs)) {
        this.reaper.touch(sessionId);
        return { ...entry.handle, path: 'discover', recreated: false };
      }
      await this.killUnresponsive(entry);
    }
    const recreated = entry !== undefined || this.lost.has(sessionId);
    if (!entry) {
      if (this.sessions.size >= this.maxSessions) {
        throw new SessionError(
          SessionErrorCode.CapacityExhausted,
          `maximum number of sessions (${this.maxSessions}) reached: end one with DELETE /sessions/{id} or raise --max-sessions`,
        );
      }
      entry = { sessionId, token: deriveSessionToken(this.options.hmacKey, sessionId), workspace: this.workspaces.sessionWorkspace(sessionId), stopping: false };
      this.sessions.set(sessionId, entry);
      try {
        if (!(await this.claimWarm(entry, signal))) {
          entry.workspace = await this.workspaces.createSession(sessionId);
          await this.spawnFor(entry, signal);
        }
      } catch (error) {
        this.sessions.delete(sessionId);
        this.reaper.forget(sessionId);
        await this.workspaces.removeSession(sessionId).catch(() => undefined);
        throw error;
      }
    } else {
      // Crashed (or unresponsive) agent: a new one in the same workspace; files persist, shell state is lost.
      this.logger.info('recreating the sandbox agent of a session', { sessionId });
      await this.spawnFor(entry, signal);
    }
    this.lost.delete(sessionId);
    return { ...entry.handle!, recreated };
  }

  async find(sessionId: string): Promise<SandboxHandle | undefined> {
    const entry = this.sessions.get(sessionId);
    if (!entry?.handle || !entry.process || entry.process.hasExited) return undefined;
    return { ...entry.handle, path: 'discover', recreated: false };
  }

  async reassign(handle: SandboxHandle, signal: AbortSignal): Promise<void> {
    try {
      await this.agent.assign(handle.agentUrl, handle.token, signal);
    } catch (error) {
      // 409 `already assigned`: another call re-delivered the token first.
      if (error instanceof AgentError && error.code === AgentErrorCode.Status && error.status === 409) return;
      throw error;
    }
  }

  onSandboxGone(listener: (sessionId: string) => void): void {
    this.goneListeners.push(listener);
  }

  touch(handle: SandboxHandle): void {
    if (this.sessions.has(handle.sessionId)) this.reaper.touch(handle.sessionId);
  }

  beginCommand(handle: SandboxHandle): () => void {
    return this.sessions.has(handle.sessionId) ? this.reaper.begin(handle.sessionId) : () => undefined;
  }

  /** Kills the session's agent and deletes its workspace (ephemeral sandbox); unknown sessions are a no-op. */
  async release(sessionId: string): Promise<void> {
    if (!this.starting) return;
    await this.start();
    await this.locks.run(sessionId, () => this.destroy(sessionId, false));
  }

  async checkHealth(): Promise<void> {
    await this.start();
    this.assertOpen();
    await this.health.check(this.isolationMode);
  }

  /** SIGTERM to every agent, SIGKILL after the grace; deletes the workspaces. Idempotent. */
  shutdown(): Promise<void> {
    this.stopping ??= (async () => {
      this.lifetime.abort();
      this.reaper.stop();
      this.pool?.close();
      for (const entry of this.sessions.values()) entry.stopping = true;
      await Promise.all([...this.children].map((child) => stopAgent(child, this.clock, this.stopGraceMs)));
      this.sessions.clear();
      if (this.prepared) await this.workspaces.close().catch((error: unknown) => this.logger.warn('cleaning the state dir failed', { error: messageOf(error) }));
    })();
    return this.stopping;
  }

  private async prepare(): Promise<void> {
    await this.workspaces.prepare();
    this.prepared = true;
    const isolation = await resolveIsolation(this.requestedIsolation, this.runner, this.bwrapPath, this.network);
    this.isolationMode = isolation.mode;
    await this.endpoints.prepare();
    if (isolation.fallbackReason) {
      this.logger.warn('local sandboxes run WITHOUT isolation (--local-isolation=auto)', { reason: isolation.fallbackReason });
    }
    if (isolation.mode === 'bwrap') this.bwrapPlan = await planBwrap({
      hostFs: this.hostFs, bwrapPath: this.bwrapPath, nodePath: this.nodePath, agentEntry: this.agentEntry,
      stateDir: this.workspaces.stateDir, hostHome: this.options.hostHome, hidePaths: this.options.hidePaths,
    });
    this.pool?.fill();
  }

  private launchSpec(workspace: string, token: string | undefined, endpoint: AgentEndpoint): LaunchSpec {
    const { hostEnv = process.env, extraEnv } = this.options;
    return buildLaunchSpec({
      isolation: this.isolationMode ?? 'none', nodePath: this.nodePath, agentEntry: this.agentEntry,
      workspaceHostDir: workspace, token, hostEnv, extraEnv, bwrap: this.bwrapPlan, endpoint,
    });
  }

  /** Starts an agent; every child is tracked from spawn on, so shutdown can never miss one (C-HTTP-4). */
  private async launch(workspace: string, token: string | undefined, signal: AbortSignal): Promise<StartedAgent> {
    const tracking: ProcessLauncher = { launch: (spec) => this.track(this.launcher.launch(spec)) };
    const started = this.clock.now();
    const agent = await startAgentAt(this.endpoints, tracking, (endpoint) => this.launchSpec(workspace, token, endpoint), {
      clock: this.clock, readyTimeoutMs: this.readyTimeoutMs, signal,
    });
    if (this.stopping) {
      await stopAgent(agent.process, this.clock, 0);
      throw new SessionError(SessionErrorCode.ShuttingDown, 'server is shutting down');
    }
    this.metrics?.sandboxReady(Math.max(0, this.clock.now() - started) / 1000);
    return agent;
  }

  private track(child: AgentProcess): AgentProcess {
    this.children.add(child);
    void child.exited.then(() => this.children.delete(child));
    return child;
  }

  private async spawnFor(entry: SessionEntry, signal: AbortSignal): Promise<void> {
    const agent = await this.launch(entry.workspace, entry.token, signal);
    this.adopt(entry, agent, 'create');
  }

  private adopt(entry: SessionEntry, agent: StartedAgent, path: 'create' | 'claim'): void {
    entry.stopping = false;
    entry.process = agent.process;
    entry.handle = {
      sessionId: entry.sessionId, agentUrl: agent.url, token: entry.token,
      sandboxName: `pid-${agent.process.pid}`, path,
    };
    void agent.process.exited.then((exit) => {
      if (entry.process !== agent.process) return;
      entry.process = undefined;
      entry.handle = undefined;
      for (const listener of this.goneListeners) listener(entry.sessionId);
      if (!entry.stopping) {
        this.logger.warn('sandbox agent exited; the session gets a new one on its next command', {
          sessionId: entry.sessionId, exit: describeExit(exit), stderr: agent.process.stderrTail().slice(-500),
        });
        this.options.onSessionEnded?.(entry.sessionId, 'crashed');
      }
    });
  }

  private async claimWarm(entry: SessionEntry, signal: AbortSignal): Promise<boolean> {
    // One attempt: a failed claim falls back to a fresh agent, so a broken pool cannot loop (refills are instant).
    const warm = this.pool?.take();
    if (warm && !warm.process.hasExited) {
      try {
        await this.agent.assign(warm.url, entry.token, signal);
        entry.workspace = await this.workspaces.adoptWarm(warm.name, entry.sessionId);
        this.adopt(entry, warm, 'claim');
        return true;
      } catch (error) {
        this.logger.warn('claiming a warm sandbox agent failed', { error: messageOf(error) });
        await stopAgent(warm.process, this.clock, 0);
        await this.workspaces.removeWarm(warm.name).catch(() => undefined);
        if (signal.aborted) throw new SessionError(SessionErrorCode.Cancelled, 'request cancelled by the client');
      }
    }
    return false;
  }

  private async startWarm(): Promise<WarmAgent> {
    const name = `warm-${randomBytes(6).toString('hex')}`;
    const workspace = await this.workspaces.createWarm(name);
    try {
      const agent = await this.launch(workspace, undefined, this.lifetime.signal);
      const warm: WarmAgent = { ...agent, name };
      void agent.process.exited.then(() => {
        // Died while waiting in the pool: replace it (a claimed one is the session's business).
        if (this.pool?.remove(warm)) void this.workspaces.removeWarm(name).catch(() => undefined);
      });
      return warm;
    } catch (error) {
      await this.workspaces.removeWarm(name).catch(() => undefined);
      throw error;
    }
  }

  private async killUnresponsive(entry: SessionEntry): Promise<void> {
    const child = entry.process!;
    this.logger.warn('sandbox agent refuses connections; replacing it', { sessionId: entry.sessionId });
    entry.stopping = true;
    child.kill('SIGKILL');
    await child.exited;
    entry.process = undefined;
    entry.handle = undefined;
  }

  private reapIdle(sessionId: string): void {
    void this.locks
      .run(sessionId, async () => {
        // Activity after the timer fired re-tracked the session: it is not idle any more.
        if (this.stopping || this.reaper.has(sessionId) || !this.sessions.has(sessionId)) return;
        this.logger.info('releasing an idle session', { sessionId });
        await this.destroy(sessionId, true);
      })
      .catch((error: unknown) => this.logger.warn('releasing an idle session failed', { sessionId, error: messageOf(error) }));
  }

  private async destroy(sessionId: string, lostState: boolean): Promise<void> {
    const entry = this.sessions.get(sessionId);
    this.sessions.delete(sessionId);
    this.reaper.forget(sessionId);
    if (entry && lostState) this.lost.add(sessionId);
    else this.lost.delete(sessionId);
    if (entry) {
      entry.stopping = true;
      if (entry.process) await stopAgent(entry.process, this.clock, this.stopGraceMs);
    }
    await this.workspaces.removeSession(sessionId);
    if (entry) this.options.onSessionEnded?.(sessionId, lostState ? 'idle' : 'released');
  }

  private assertOpen(): void {
    if (this.stopping) throw new SessionError(SessionErrorCode.ShuttingDown, 'server is shutting down');
  }
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
