import { resolve } from 'node:path';
import { AgentClient } from '@cli-mcp/agent-client';
import { deriveSessionToken } from '@cli-mcp/auth';
import { systemClock, type Clock } from '../clock.js';
import type { BackendHealth, SandboxBackend, SandboxHandle, SandboxLoss } from '../sandbox-backend.port.js';
import { SessionError, SessionErrorCode } from '../session-error.js';
import { assignAgent } from './agent-assign.js';
import { NodeCommandRunner, type CommandRunner } from './command-runner.js';
import { defaultAgentEntry } from './default-agent-entry.js';
import { NodeHostFs, type HostFs } from './host-fs.js';
import { IdleReaper } from './idle-reaper.js';
import type { SandboxPosture } from './isolation.js';
import { BoundedSet, KeyedMutex } from './keyed-mutex.js';
import {
  LOCAL_DEFAULTS, validateLocalOptions, type LocalAgentPort, type LocalBackendLogger, type LocalBackendOptions,
} from './local-backend.options.js';
import { LocalHealth, postureDetails } from './local-health.js';
import { describeExit } from './process-launcher.js';
import { agentResponds, stopAgent } from './sandbox-process.js';
import { adoptAgent, liveHandle, type SessionEntry } from './session-entry.js';
import { startSandboxRuntime, type SandboxRuntime } from './sandbox-runtime.js';
import { messageOf } from './warm-claimer.js';
import { FsWorkspaceStore, type WorkspaceStore } from './workspace-store.js';

const LOST_SESSIONS_REMEMBERED = 10_000;
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
  private readonly sessions = new Map<string, SessionEntry>();
  private readonly lost = new BoundedSet(LOST_SESSIONS_REMEMBERED);
  private readonly locks = new KeyedMutex();
  private readonly reaper: IdleReaper;
  private readonly lifetime = new AbortController();
  private readonly goneListeners: Array<(sessionId: string) => void> = [];
  private readonly health: LocalHealth;
  private running?: SandboxRuntime;
  private starting?: Promise<void>;
  private prepared = false;
  private stopping?: Promise<void>;

  constructor(private readonly options: LocalBackendOptions) {
    const problems = validateLocalOptions(options);
    if (problems.length > 0) {
      throw new SessionError(SessionErrorCode.SandboxUnavailable, `invalid local backend configuration: ${problems.join('; ')}`);
    }
    this.agentEntry = resolve(options.agentEntry ?? defaultAgentEntry());
    this.clock = options.clock ?? systemClock;
    this.agent = options.agent ?? new AgentClient();
    this.runner = options.commandRunner ?? new NodeCommandRunner();
    this.hostFs = options.hostFs ?? new NodeHostFs();
    this.workspaces = options.workspaces ?? new FsWorkspaceStore(options.stateDir);
    this.logger = options.logger ?? silentLogger;
    this.health = new LocalHealth({ hostFs: this.hostFs, runner: this.runner, clock: this.clock, agentEntry: this.agentEntry, cacheMs: LOCAL_DEFAULTS.healthCacheMs });
    this.reaper = new IdleReaper(this.clock, options.idleTimeoutMs ?? LOCAL_DEFAULTS.idleTimeoutMs, (id) => this.reapIdle(id));
  }

  /** What the sandboxes really get once started (`auto` resolved). */
  get posture(): SandboxPosture | undefined {
    return this.running?.posture;
  }

  /** Isolation in force once started (`auto` resolved). */
  get isolation(): 'bwrap' | 'none' | undefined {
    return this.running?.posture.isolation;
  }

  /** Sessions holding a workspace (live or crashed agent), the count `maxSessions` limits. */
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
        return await this.acquireLocked(sessionId, signal);
      } finally {
        busy();
        if (!this.sessions.has(sessionId)) this.reaper.forget(sessionId);
      }
    });
  }

  async find(sessionId: string): Promise<SandboxHandle | undefined> {
    const handle = liveHandle(this.sessions.get(sessionId));
    return handle && { ...handle, path: 'discover', recreated: false };
  }

  /** Re-delivers the token to an agent that restarted unassigned (C-K8S-7), by the one assign path (C-AG-13). */
  async reassign(handle: SandboxHandle, signal: AbortSignal): Promise<void> {
    await assignAgent(this.agent, handle.agentUrl, handle.token, signal);
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

  /** Fails (503) when sandboxes cannot start; reports the isolation actually in force either way (C-SEC-4). */
  async checkHealth(): Promise<BackendHealth> {
    await this.start();
    this.assertOpen();
    const { posture, probe } = this.running!;
    await this.health.check(probe);
    return { details: postureDetails(posture) };
  }

  /** SIGTERM to every agent, SIGKILL after the grace; deletes the workspaces. Idempotent. */
  shutdown(): Promise<void> {
    this.stopping ??= (async () => {
      this.lifetime.abort();
      this.reaper.stop();
      this.running?.claimer?.close();
      for (const entry of this.sessions.values()) entry.stopping = true;
      await this.running?.spawner.stopAll(this.options.stopGraceMs ?? LOCAL_DEFAULTS.stopGraceMs);
      await this.running?.endpoints.close?.().catch((error: unknown) => this.logger.warn('removing the agent socket directory failed', { error: messageOf(error) }));
      this.sessions.clear();
      if (this.prepared) await this.workspaces.close().catch((error: unknown) => this.logger.warn('cleaning the state dir failed', { error: messageOf(error) }));
    })();
    return this.stopping;
  }

  private async acquireLocked(sessionId: string, signal: AbortSignal): Promise<SandboxHandle> {
    let entry = this.sessions.get(sessionId);
    const live = liveHandle(entry);
    if (live && entry?.process) {
      if (await agentResponds(this.agent, live.agentUrl, this.clock, LOCAL_DEFAULTS.probeTimeoutMs)) {
        this.reaper.touch(sessionId);
        return { ...live, path: 'discover', recreated: false };
      }
      await this.killUnresponsive(entry);
    }
    // A crashed or unresponsive agent's session keeps its workspace; a reaped one lost it with the agent.
    const recreated = entry !== undefined || this.lost.has(sessionId);
    const lost: SandboxLoss | undefined = recreated ? { shellState: true, files: entry === undefined } : undefined;
    const { spawner, claimer } = this.running!;
    if (!entry) {
      const maxSessions = this.options.maxSessions ?? LOCAL_DEFAULTS.maxSessions;
      if (this.sessions.size >= maxSessions) {
        throw new SessionError(
          SessionErrorCode.CapacityExhausted,
          `maximum number of sessions (${maxSessions}) reached: end one with DELETE /sessions/{id} or raise --max-sessions`,
        );
      }
      const token = deriveSessionToken(this.options.hmacKey, sessionId);
      entry = { sessionId, token, workspace: this.workspaces.sessionWorkspace(sessionId), stopping: false };
      this.sessions.set(sessionId, entry);
      try {
        const claimed = await claimer?.claim(sessionId, token, signal);
        if (claimed) {
          entry.workspace = claimed.workspace;
          this.adopt(entry, claimed.agent, 'claim');
        } else {
          entry.workspace = await this.workspaces.createSession(sessionId);
          this.adopt(entry, await spawner.spawn(entry.workspace, token, signal), 'create');
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
      this.adopt(entry, await spawner.spawn(entry.workspace, entry.token, signal), 'create');
    }
    this.lost.delete(sessionId);
    return { ...entry.handle!, recreated, lost };
  }

  private adopt(entry: SessionEntry, agent: Parameters<typeof adoptAgent>[1], path: 'create' | 'claim'): void {
    adoptAgent(entry, agent, path, (crashed, exit) => {
      for (const listener of this.goneListeners) listener(entry.sessionId);
      if (!crashed) return;
      this.logger.warn('sandbox agent exited; the session gets a new one on its next command', {
        sessionId: entry.sessionId, exit: describeExit(exit), stderr: agent.process.stderrTail().slice(-500),
      });
      this.options.onSessionEnded?.(entry.sessionId, 'crashed');
    });
  }

  private async prepare(): Promise<void> {
    await this.workspaces.prepare();
    this.prepared = true;
    this.running = await startSandboxRuntime(this.options, {
      agentEntry: this.agentEntry, agent: this.agent, clock: this.clock, runner: this.runner, hostFs: this.hostFs,
      workspaces: this.workspaces, logger: this.logger, lifetime: this.lifetime.signal,
    });
    this.running.claimer?.fill();
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
      if (entry.process) await stopAgent(entry.process, this.clock, this.options.stopGraceMs ?? LOCAL_DEFAULTS.stopGraceMs);
    }
    await this.workspaces.removeSession(sessionId);
    if (entry) this.options.onSessionEnded?.(sessionId, lostState ? 'idle' : 'released');
  }

  private assertOpen(): void {
    if (this.stopping) throw new SessionError(SessionErrorCode.ShuttingDown, 'server is shutting down');
  }
}
