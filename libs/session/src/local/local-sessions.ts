import { deriveSessionToken } from '@cli-mcp/auth';
import type { Clock } from '@cli-mcp/common';
import type { SandboxHandle, SandboxLoss } from '../sandbox-backend.port.js';
import { SessionError, SessionErrorCode } from '../session-error.js';
import type { IdleReaper } from './idle-reaper.js';
import { BoundedSet } from './keyed-mutex.js';
import type { LocalAgentPort, LocalBackendLogger, SessionEndReason } from './local-backend.options.js';
import { describeExit, type AgentProcess } from './process-launcher.js';
import { agentResponds, stopAgent, type StartedAgent } from './sandbox-process.js';
import type { SandboxRuntime } from './sandbox-runtime.js';
import { adoptAgent, liveHandle, type SessionEntry } from './session-entry.js';
import type { RecoveredSession, WorkspaceStore } from './workspace-store.js';

const LOST_SESSIONS_REMEMBERED = 10_000;

export interface LocalSessionsDeps {
  hmacKey: Buffer;
  maxSessions: number;
  stopGraceMs: number;
  probeTimeoutMs: number;
  agent: LocalAgentPort;
  clock: Clock;
  workspaces: WorkspaceStore;
  logger: LocalBackendLogger;
  reaper: IdleReaper;
  /** Any end of a session's agent (the manager drops its cached URL). */
  onGone: (sessionId: string) => void;
  onSessionEnded?: (sessionId: string, reason: SessionEndReason) => void;
}

/**
 * The sessions that hold a workspace, and what happens to one: acquisition (reuse, crash recovery, a new
 * sandbox), and its end (DELETE, idle). Callers serialise per session (LocalBackend's mutex). A session without
 * a running agent — crashed, or left by an earlier server — keeps its files, and its next acquisition says the
 * shell state was lost and the files were kept (C-K8S-7).
 */
export class LocalSessions {
  private readonly entries = new Map<string, SessionEntry>();
  /** Sessions whose workspace went without the client asking (idle reaping): their next use is "recreated". */
  private readonly lost = new BoundedSet(LOST_SESSIONS_REMEMBERED);

  constructor(private readonly deps: LocalSessionsDeps) {}

  get size(): number {
    return this.entries.size;
  }

  has(sessionId: string): boolean {
    return this.entries.has(sessionId);
  }

  liveHandle(sessionId: string): SandboxHandle | undefined {
    return liveHandle(this.entries.get(sessionId));
  }

  /**
   * Adopts the sessions an earlier server left (issue 22): each keeps its workspace and gets a new agent on its
   * next command. Its idle time starts now; the time the server was down does not count.
   */
  restore(recovered: readonly RecoveredSession[]): void {
    for (const { sessionId, workspace } of recovered) {
      this.entries.set(sessionId, { sessionId, token: deriveSessionToken(this.deps.hmacKey, sessionId), workspace, stopping: false });
      this.deps.reaper.track(sessionId);
    }
    if (recovered.length > 0) {
      this.deps.logger.info('kept the workspaces of sessions from an earlier run; each gets a new sandbox on its next command', {
        sessions: recovered.length,
      });
    }
  }

  async acquire(sessionId: string, runtime: SandboxRuntime, signal: AbortSignal): Promise<SandboxHandle> {
    let entry = this.entries.get(sessionId);
    const live = liveHandle(entry);
    const child = entry?.process;
    if (live && entry && child) {
      if (await agentResponds(this.deps.agent, live.agentUrl, this.deps.clock, this.deps.probeTimeoutMs)) {
        this.deps.reaper.touch(sessionId);
        return { ...live, path: 'discover', recreated: false };
      }
      // The agent may have been seen exiting while it was probed (a crash): then it is gone already.
      await this.killUnresponsive(entry, child);
    }
    // A crashed, unresponsive or adopted agent's session keeps its workspace; a reaped one lost it with the agent.
    const recreated = entry !== undefined || this.lost.has(sessionId);
    // A sandbox a bound stopped says which and by how much (issue 22).
    const reason = entry && runtime.spawner.takeStopReason(entry.workspace);
    const lost: SandboxLoss | undefined = recreated ? { shellState: true, files: entry === undefined, ...(reason ? { reason } : {}) } : undefined;
    if (!entry) {
      entry = await this.create(sessionId, runtime, signal);
    } else {
      this.deps.logger.info('recreating the sandbox agent of a session', { sessionId });
      this.adopt(entry, await runtime.spawner.spawn(entry.workspace, entry.token, signal), 'create');
    }
    this.lost.delete(sessionId);
    return { ...entry.handle!, recreated, lost };
  }

  /** Why a bound stopped the session's sandbox, without taking it (its next acquisition's notice takes it). */
  stopReason(sessionId: string, runtime: SandboxRuntime): string | undefined {
    const entry = this.entries.get(sessionId);
    return entry && runtime.spawner.peekStopReason(entry.workspace);
  }

  /**
   * Stops the session's agent and deletes its workspace; `lostState`: reaped (its next use is "recreated"). Its
   * egress ends first, before the agent's stop grace: the gateway refuses its traffic at once (C-EGR-6).
   */
  async end(sessionId: string, lostState: boolean, runtime?: SandboxRuntime): Promise<void> {
    await runtime?.egress?.revoke(sessionId);
    const entry = this.entries.get(sessionId);
    this.entries.delete(sessionId);
    this.deps.reaper.forget(sessionId);
    if (entry && lostState) this.lost.add(sessionId);
    else this.lost.delete(sessionId);
    if (entry) {
      entry.stopping = true;
      if (entry.process) await stopAgent(entry.process, this.deps.clock, this.deps.stopGraceMs);
    }
    await this.deps.workspaces.removeSession(sessionId);
    if (entry) this.deps.onSessionEnded?.(sessionId, lostState ? 'idle' : 'released');
  }

  /** Shutdown: the agents are being stopped on purpose (not crashes); the workspaces stay on disk. */
  forgetAll(): void {
    for (const entry of this.entries.values()) entry.stopping = true;
    this.entries.clear();
  }

  private async create(sessionId: string, runtime: SandboxRuntime, signal: AbortSignal): Promise<SessionEntry> {
    if (this.entries.size >= this.deps.maxSessions) {
      throw new SessionError(
        SessionErrorCode.CapacityExhausted,
        `maximum number of sessions (${this.deps.maxSessions}) reached: end one with DELETE /sessions/{id} or raise --max-sessions`,
      );
    }
    const token = deriveSessionToken(this.deps.hmacKey, sessionId);
    const entry: SessionEntry = { sessionId, token, workspace: this.deps.workspaces.sessionWorkspace(sessionId), stopping: false };
    this.entries.set(sessionId, entry);
    try {
      const claimed = await runtime.claimer?.claim(sessionId, token, signal);
      if (claimed) {
        entry.workspace = claimed.workspace;
        this.adopt(entry, claimed.agent, 'claim');
      } else {
        entry.workspace = await this.deps.workspaces.createSession(sessionId);
        this.adopt(entry, await runtime.spawner.spawn(entry.workspace, token, signal), 'create');
      }
      return entry;
    } catch (error) {
      this.entries.delete(sessionId);
      this.deps.reaper.forget(sessionId);
      await this.deps.workspaces.removeSession(sessionId).catch(() => undefined);
      throw error;
    }
  }

  private adopt(entry: SessionEntry, agent: StartedAgent, path: 'create' | 'claim'): void {
    // The sandbox's gateway socket speaks for this session from now on (a warm one spoke for nobody).
    agent.egress?.assign(entry.sessionId);
    adoptAgent(entry, agent, path, (crashed, exit) => {
      this.deps.onGone(entry.sessionId);
      if (!crashed) return;
      this.deps.logger.warn('sandbox agent exited; the session gets a new one on its next command', {
        sessionId: entry.sessionId, exit: describeExit(exit), stderr: agent.process.stderrTail().slice(-500),
      });
      this.deps.onSessionEnded?.(entry.sessionId, 'crashed');
    });
  }

  private async killUnresponsive(entry: SessionEntry, child: AgentProcess): Promise<void> {
    if (!child.hasExited) {
      this.deps.logger.warn('sandbox agent refuses connections; replacing it', { sessionId: entry.sessionId });
      if (entry.process === child) entry.stopping = true;
      child.kill('SIGKILL');
      await child.exited;
    }
    if (entry.process === child) {
      entry.process = undefined;
      entry.handle = undefined;
    }
  }
}
