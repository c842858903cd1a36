import { resolve } from 'node:path';
import { AgentClient } from '@cli-mcp/agent-client';
import { systemClock, type Clock } from '@cli-mcp/common';
import type { BackendHealth, SandboxBackend, SandboxHandle } from '../sandbox-backend.port.js';
import { SessionError, SessionErrorCode } from '../session-error.js';
import { deliverTokenOrFail } from '../token-delivery.js';
import { NodeCommandRunner, type CommandRunner } from './command-runner.js';
import { defaultAgentEntry } from './default-agent-entry.js';
import { NodeHostFs, type HostFs } from './host-fs.js';
import { IdleReaper } from './idle-reaper.js';
import type { SandboxPosture } from './isolation.js';
import { KeyedMutex } from './keyed-mutex.js';
import {
  LOCAL_DEFAULTS, type LocalAgentPort, type LocalBackendConfig, type LocalBackendDeps, type LocalBackendLogger, type LocalBackendOptions,
} from './local-backend.options.js';
import { LocalHealth, assertAgentPresent, postureDetails } from './local-health.js';
import { LocalSessions } from './local-sessions.js';
import { startSandboxRuntime, type SandboxRuntime } from './sandbox-runtime.js';
import { messageOf } from './warm-claimer.js';
import { FsWorkspaceStore, type WorkspaceStore } from './workspace-store.js';

const silentLogger: LocalBackendLogger = { info: () => undefined, warn: () => undefined };

/**
 * The `local` backend (docs/local-backend.md): one sandbox-agent process per session, inside bubblewrap when
 * available. This class owns the session lifecycle — capacity, acquisition, crash recovery, release and idle
 * reaping; starting sandboxes is the spawner's, warm claims the claimer's. State lives in this process only, so
 * it serves a single server replica.
 */
export class LocalBackend implements SandboxBackend {
  readonly kind = 'local' as const;
  readonly agentEntry: string;
  private readonly clock: Clock;
  private readonly agent: LocalAgentPort;
  private readonly runner: CommandRunner;
  private readonly hostFs: HostFs;
  private readonly workspaces: WorkspaceStore;
  private readonly logger: LocalBackendLogger;
  private readonly sessions: LocalSessions;
  private readonly locks = new KeyedMutex();
  private readonly reaper: IdleReaper;
  private readonly lifetime = new AbortController();
  private readonly goneListeners: Array<(sessionId: string) => void> = [];
  private readonly health: LocalHealth;
  private running?: SandboxRuntime;
  private starting?: Promise<void>;
  private prepared = false;
  private stopping?: Promise<void>;

  private readonly options: LocalBackendOptions;

  /** `config` is the server's validated configuration; `deps` the ports and seams (production defaults). */
  constructor(config: LocalBackendConfig, deps: LocalBackendDeps = {}) {
    const options: LocalBackendOptions = { ...config, ...deps };
    this.options = options;
    this.agentEntry = resolve(options.agentEntry ?? defaultAgentEntry());
    this.clock = options.clock ?? systemClock;
    this.agent = options.agent ?? new AgentClient();
    this.runner = options.commandRunner ?? new NodeCommandRunner();
    this.hostFs = options.hostFs ?? new NodeHostFs();
    this.workspaces = options.workspaces ?? new FsWorkspaceStore(options.stateDir);
    this.logger = options.logger ?? silentLogger;
    this.health = new LocalHealth({ hostFs: this.hostFs, runner: this.runner, clock: this.clock, agentEntry: this.agentEntry, cacheMs: LOCAL_DEFAULTS.healthCacheMs });
    this.reaper = new IdleReaper(this.clock, options.idleTimeoutMs ?? LOCAL_DEFAULTS.idleTimeoutMs, (id) => this.reapIdle(id));
    this.sessions = new LocalSessions({
      hmacKey: options.hmacKey, maxSessions: options.maxSessions ?? LOCAL_DEFAULTS.maxSessions,
      stopGraceMs: options.stopGraceMs ?? LOCAL_DEFAULTS.stopGraceMs, probeTimeoutMs: LOCAL_DEFAULTS.probeTimeoutMs,
      agent: this.agent, clock: this.clock, workspaces: this.workspaces, logger: this.logger, reaper: this.reaper,
      onGone: (sessionId) => this.goneListeners.forEach((listener) => listener(sessionId)), onSessionEnded: options.onSessionEnded,
    });
  }

  /** What the sandboxes really get once started (`auto` resolved); `isolation` is its part most callers need. */
  get posture(): SandboxPosture | undefined {
    return this.running?.posture;
  }

  get isolation(): 'bwrap' | 'none' | undefined {
    return this.running?.posture.isolation;
  }

  /** Sessions holding a workspace (live, crashed or adopted agent), the count `maxSessions` limits. */
  get activeSessions(): number {
    return this.sessions.size;
  }

  get warmReady(): number {
    return this.running?.claimer?.readyCount ?? 0;
  }

  /**
   * Prepares the state dir (lock, stale cleanup), resolves isolation and network, plans the sandbox view and
   * fills the warm pool. Idempotent; called lazily by the other methods, or eagerly at boot so configuration
   * errors stop the server.
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
        return await this.sessions.acquire(sessionId, this.running!, signal);
      } finally {
        busy();
        if (!this.sessions.has(sessionId)) this.reaper.forget(sessionId);
      }
    });
  }

  async find(sessionId: string): Promise<SandboxHandle | undefined> {
    const handle = this.sessions.liveHandle(sessionId);
    return handle && { ...handle, path: 'discover', recreated: false };
  }

  /** Re-delivers the token to an agent that restarted unassigned (C-K8S-7), by the one assign path (C-AG-13). */
  async reassign(handle: SandboxHandle, signal: AbortSignal): Promise<void> {
    await deliverTokenOrFail(this.agent, handle.agentUrl, handle.token, signal);
  }

  onSandboxGone(listener: (sessionId: string) => void): void {
    this.goneListeners.push(listener);
  }

  stopReason(sessionId: string): string | undefined {
    return this.running && this.sessions.stopReason(sessionId, this.running);
  }

  touch(handle: SandboxHandle): void {
    if (this.sessions.has(handle.sessionId)) this.reaper.touch(handle.sessionId);
  }

  beginCommand(handle: SandboxHandle): () => void {
    return this.sessions.has(handle.sessionId) ? this.reaper.begin(handle.sessionId) : () => undefined;
  }

  /** Kills the session's agent and deletes its workspace (ephemeral sandbox); unknown sessions are a no-op. */
  async end(sessionId: string): Promise<void> {
    if (!this.starting) return;
    await this.start();
    await this.locks.run(sessionId, () => this.sessions.end(sessionId, false, this.running));
  }

  /** Fails (503) when sandboxes cannot start; reports the isolation actually in force either way (C-SEC-4). */
  async checkHealth(): Promise<BackendHealth> {
    await this.start();
    this.assertOpen();
    const { posture, probe, bounds, egress } = this.running!;
    await this.health.check(probe);
    return { details: postureDetails(posture, bounds, egress?.report) };
  }

  /**
   * SIGTERM to every agent, SIGKILL after the grace. The sessions' workspaces stay: the next server on this state
   * dir adopts them (issue 22). Idempotent.
   */
  shutdown(): Promise<void> {
    this.stopping ??= (async () => {
      this.lifetime.abort();
      this.reaper.stop();
      this.running?.claimer?.close();
      this.sessions.forgetAll();
      // Egress ends now, not after the agents' stop grace: no session's traffic outlives the server's decision.
      await this.running?.egress?.close().catch((error: unknown) => this.logger.warn('closing the egress gateway failed', { error: messageOf(error) }));
      await this.running?.spawner.stopAll(this.options.stopGraceMs ?? LOCAL_DEFAULTS.stopGraceMs);
      await this.running?.endpoints.close?.().catch((error: unknown) => this.logger.warn('removing the agent socket directory failed', { error: messageOf(error) }));
      if (this.prepared) await this.workspaces.close().catch((error: unknown) => this.logger.warn('cleaning the state dir failed', { error: messageOf(error) }));
    })();
    return this.stopping;
  }

  private async prepare(): Promise<void> {
    // Before anything is touched: an installation without the agent cannot serve a single session.
    await assertAgentPresent(this.agentEntry, this.hostFs);
    const recovered = await this.workspaces.prepare(this.options.resetState ?? false);
    this.prepared = true;
    this.running = await startSandboxRuntime(this.options, {
      agentEntry: this.agentEntry, agent: this.agent, clock: this.clock, runner: this.runner, hostFs: this.hostFs,
      workspaces: this.workspaces, logger: this.logger, lifetime: this.lifetime.signal,
    });
    this.sessions.restore(recovered);
    this.running.claimer?.fill();
  }

  private reapIdle(sessionId: string): void {
    void this.locks
      .run(sessionId, async () => {
        // Activity after the timer fired re-tracked the session: it is not idle any more.
        if (this.stopping || this.reaper.has(sessionId) || !this.sessions.has(sessionId)) return;
        this.logger.info('releasing an idle session', { sessionId });
        await this.sessions.end(sessionId, true, this.running);
      })
      .catch((error: unknown) => this.logger.warn('releasing an idle session failed', { sessionId, error: messageOf(error) }));
  }

  private assertOpen(): void {
    if (this.stopping) throw new SessionError(SessionErrorCode.ShuttingDown, 'server is shutting down');
  }
}
