import { randomBytes } from 'node:crypto';
import type { Clock } from '@cli-mcp/common';
import { SessionError, SessionErrorCode } from '../session-error.js';
import { deliverTokenOrFail } from '../token-delivery.js';
import type { LocalAgentPort, LocalBackendLogger } from './local-backend.options.js';
import type { SandboxSpawner } from './sandbox-spawner.js';
import { stopAgent, type StartedAgent } from './sandbox-process.js';
import type { WarmAgent } from './session-entry.js';
import { WarmPool } from './warm-pool.js';
import type { WorkspaceStore } from './workspace-store.js';

export interface WarmClaimerDeps {
  clock: Clock;
  spawner: SandboxSpawner;
  workspaces: WorkspaceStore;
  agent: LocalAgentPort;
  logger: LocalBackendLogger;
  /** Aborted at shutdown: a warm start in progress is abandoned. */
  lifetime: AbortSignal;
}

/** A claimed warm agent, now the session's, in its workspace. */
export interface ClaimedAgent {
  agent: StartedAgent;
  workspace: string;
}

/**
 * `--warm-pool-size` (docs/local-backend.md "Warm pool"): keeps unassigned agents started, each in its own
 * `warm/<name>` workspace, and hands one to a new session with the one token delivery of both backends (token-delivery.ts).
 */
export class WarmClaimer {
  private readonly pool: WarmPool<WarmAgent>;

  constructor(size: number, private readonly deps: WarmClaimerDeps) {
    this.pool = new WarmPool<WarmAgent>(size, deps.clock, {
      start: () => this.startWarm(),
      onStartFailed: (error) => deps.logger.warn('warm sandbox agent failed to start', { error: messageOf(error) }),
    });
  }

  get readyCount(): number {
    return this.pool.readyCount;
  }

  fill(): void {
    this.pool.fill();
  }

  close(): void {
    this.pool.close();
  }

  /**
   * One attempt (a failed claim falls back to a fresh agent, so a broken pool cannot loop; refills are instant).
   * Undefined when no warm agent was ready or the claim failed; the failed agent is stopped and removed.
   */
  async claim(sessionId: string, token: string, signal: AbortSignal): Promise<ClaimedAgent | undefined> {
    const warm = this.pool.take();
    if (!warm || warm.process.hasExited) return undefined;
    try {
      await deliverTokenOrFail(this.deps.agent, warm.url, token, signal);
      return { agent: warm, workspace: await this.deps.workspaces.adoptWarm(warm.name, sessionId) };
    } catch (error) {
      // 409 included: an agent that took someone else's token is never this session's.
      this.deps.logger.warn('claiming a warm sandbox agent failed', { error: messageOf(error) });
      await stopAgent(warm.process, this.deps.clock, 0);
      await this.deps.workspaces.removeWarm(warm.name).catch(() => undefined);
      if (signal.aborted) throw new SessionError(SessionErrorCode.Cancelled, 'request cancelled by the client');
      return undefined;
    }
  }

  private async startWarm(): Promise<WarmAgent> {
    const name = `warm-${randomBytes(6).toString('hex')}`;
    const workspace = await this.deps.workspaces.createWarm(name);
    try {
      const agent = await this.deps.spawner.spawn(workspace, undefined, this.deps.lifetime);
      const warm: WarmAgent = { ...agent, name };
      void agent.process.exited.then(() => {
        // Died while waiting in the pool: replace it (a claimed one is the session's business).
        if (this.pool.remove(warm)) void this.deps.workspaces.removeWarm(name).catch(() => undefined);
      });
      return warm;
    } catch (error) {
      await this.deps.workspaces.removeWarm(name).catch(() => undefined);
      throw error;
    }
  }
}

export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
