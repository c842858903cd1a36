import { randomUUID } from 'node:crypto';
import type { AgentClient, CancelResponse, OutputResponse } from '@cli-mcp/agent-client';
import { Registry } from 'prom-client';
import { classifyAgentFailure, describeAgentFailure } from './agent-failure.js';
import { delay, systemClock, type Clock } from '@cli-mcp/common';
import type { AcquirePath, BackendHealth, ExecRequest, SandboxLoss, ExecResponse, SandboxBackend, SandboxHandle, SessionExecResult } from './sandbox-backend.port.js';
import { SessionCache } from './session-cache.js';
import { SessionError, SessionErrorCode } from './session-error.js';
import { assertValidSessionId } from './session-id.js';
import { SessionMetrics, type AcquireTrigger, type ExecOutcome } from './session-metrics.js';
import { FlightAbortedError, SingleFlight } from '@cli-mcp/common';

/** The part of `AgentClient` the manager uses (a port, so tests use a strict fake). */
export type SessionAgentPort = Pick<AgentClient, 'exec' | 'cancel' | 'output'>;

/** Pause between cancels sent to an agent that is not assigned yet (its claimer assigns it within milliseconds). */
const NOT_ASSIGNED_RETRY_MS = 50;

/** What a forwarded cancel did (C-MCP-9): see `SessionManager.cancel`. */
export type CancelOutcome = 'stopped' | 'waiting' | 'none';

export interface SessionManagerOptions {
  backend: SandboxBackend;
  agent: SessionAgentPort;
  /** Shared with the backend (one per registry). Absent → built on `registry`, else on a private registry. */
  metrics?: SessionMetrics;
  registry?: Registry;
  clock?: Clock;
  /** `--cache-ttl` (C-K8S-4); default 30 s. */
  cacheTtlMs?: number;
  cacheMaxEntries?: number;
}

interface Resolved {
  handle: SandboxHandle;
  path: AcquirePath;
  recreated: boolean;
  loss?: SandboxLoss;
}

/** A recreated handle that does not say what was lost lost everything; two losses add up. */
function lossOf(handle: SandboxHandle): SandboxLoss | undefined {
  return handle.recreated === true ? handle.lost ?? { shellState: true, files: true } : undefined;
}

function addLoss(a: SandboxLoss | undefined, b: SandboxLoss | undefined): SandboxLoss | undefined {
  const reason = a?.reason ?? b?.reason;
  return a && b ? { shellState: true, files: a.files || b.files, ...(reason ? { reason } : {}) } : a ?? b;
}

/** An agent that restarted unassigned (a container restart) lost its shell; the pod's /workspace is still there. */
const SHELL_ONLY: SandboxLoss = { shellState: true, files: false };

/**
 * Routes a session's commands to its sandbox: validation, replica cache, per-session single flight, the
 * recovery rules of C-K8S-7 and the session metrics (§9). Backend-agnostic: the backend only finds or makes
 * sandboxes. Plain class (no Nest decorators): the app wires it with a factory provider.
 */
export class SessionManager {
  private readonly backend: SandboxBackend;
  private readonly agent: SessionAgentPort;
  private readonly clock: Clock;
  private readonly metrics: SessionMetrics;
  private readonly cache: SessionCache;
  private readonly flights = new SingleFlight<SandboxHandle>();
  /**
   * Cancels' discovery, one per session: a cancel may wait up to its bound for a starting pod (a watch on the API
   * server), so a burst of cancels for one session shares one wait instead of opening a watch each.
   */
  private readonly cancelFinds = new SingleFlight<SandboxHandle | undefined>();
  private stopping?: Promise<void>;

  constructor(options: SessionManagerOptions) {
    this.backend = options.backend;
    this.agent = options.agent;
    this.clock = options.clock ?? systemClock;
    this.metrics = options.metrics ?? new SessionMetrics(options.registry ?? new Registry());
    this.cache = new SessionCache(this.clock, { ttlMs: options.cacheTtlMs, maxEntries: options.cacheMaxEntries });
    this.metrics.bindCachedSessions(() => this.cache.size);
    this.backend.onSandboxGone?.((sessionId) => this.cache.delete(sessionId));
  }

  /** Sessions in this replica's cache (the `cli_mcp_sessions_cached` gauge). */
  get cachedSessions(): number {
    return this.cache.size;
  }

  /** Runs one command in the session's sandbox, creating the sandbox on first use. */
  async execute(sessionId: string, request: ExecRequest, signal: AbortSignal): Promise<SessionExecResult> {
    assertValidSessionId(sessionId);
    this.assertRunning();
    const started = this.clock.now();
    try {
      const result = await this.executeWithRecovery(sessionId, request, signal);
      const { response } = result;
      this.metrics.executed(outcomeOf(response), this.secondsSince(started), response.stdout_bytes + response.stderr_bytes);
      return result;
    } catch (error) {
      const failure = toSessionError(error, signal);
      this.metrics.executed(failure.code === SessionErrorCode.Cancelled ? 'cancelled' : 'error', this.secondsSince(started));
      throw failure;
    }
  }

  /**
   * Makes the session's sandbox ready before its first command (C-MCP-13, eager acquisition): joins or starts the
   * same single flight as `execute`, so the first command waits for this acquisition instead of starting another.
   * A cached session costs nothing and counts nothing. Rejects with `SessionError` (the caller only logs it: the
   * first command then acquires again).
   */
  async prepare(sessionId: string, signal: AbortSignal): Promise<AcquirePath> {
    assertValidSessionId(sessionId);
    this.assertRunning();
    if (this.cache.get(sessionId)) return 'cache';
    return (await this.resolve(sessionId, signal, 'eager')).path;
  }

  /**
   * Stops the command `requestId` of the session (C-MCP-9). Finds the sandbox without creating one — from the
   * cache or `backend.find` — so a cancel arriving at any replica reaches it. `waiting`: the command had not reached
   * the agent yet, which will refuse it when it does (the agent's early cancels); `none`: nothing of that id ran.
   */
  async cancel(sessionId: string, requestId: string, signal: AbortSignal = new AbortController().signal): Promise<CancelOutcome> {
    assertValidSessionId(sessionId);
    let handle: SandboxHandle | undefined;
    try {
      handle = this.cache.get(sessionId) ?? (await this.cancelFinds.run(sessionId, signal, (shared) => this.backend.find(sessionId, shared, { waitForStart: true })));
      if (!handle) return 'none';
      const answer = await this.cancelOnAgent(handle, requestId, signal);
      return answer.cancelled === true ? 'stopped' : answer.waiting === true ? 'waiting' : 'none';
    } catch (error) {
      if (handle && classifyAgentFailure(error) === 'network') this.cache.invalidate(sessionId, handle.agentUrl);
      throw toSessionError(error, signal);
    }
  }

  /**
   * A pod that another replica has just claimed serves before that replica's `/assign` gives its agent the token
   * (milliseconds later): the cancel is retried until then rather than lost, bounded by `signal`.
   */
  private async cancelOnAgent(handle: SandboxHandle, requestId: string, signal: AbortSignal): Promise<CancelResponse> {
    for (;;) {
      try {
        return await this.agent.cancel(handle.agentUrl, handle.token, requestId, signal);
      } catch (error) {
        if (classifyAgentFailure(error) !== 'not-assigned' || !(await delay(this.clock, NOT_ASSIGNED_RETRY_MS, signal))) throw error;
      }
    }
  }

  /**
   * The latest output of the command `requestId` while it runs (C-MCP-10 progress). Like `cancel`, finds the
   * sandbox without creating one; undefined when nothing of that id runs there.
   */
  async peek(sessionId: string, requestId: string, signal: AbortSignal): Promise<OutputResponse | undefined> {
    assertValidSessionId(sessionId);
    const handle = this.cache.get(sessionId) ?? (await this.backend.find(sessionId, signal).catch(() => undefined));
    if (!handle) return undefined;
    const answer = await this.agent.output(handle.agentUrl, handle.token, requestId, signal).catch(() => undefined);
    return answer?.running ? answer : undefined;
  }

  /** Ends the session: cache entry and sandbox (C-HTTP-1). Idempotent: an unknown session is a no-op. */
  async end(sessionId: string, signal: AbortSignal): Promise<void> {
    assertValidSessionId(sessionId);
    this.cache.delete(sessionId);
    try {
      await this.backend.end(sessionId, signal);
    } catch (error) {
      throw toSessionError(error, signal, 'end session');
    } finally {
      // An acquisition that finished during the end must not leave a stale entry behind.
      this.cache.delete(sessionId);
    }
  }

  /** Throws a SessionError when the backend cannot create sandboxes (C-HTTP-2). */
  async checkHealth(signal: AbortSignal): Promise<BackendHealth | void> {
    try {
      return await this.backend.checkHealth(signal);
    } catch (error) {
      throw toSessionError(error, signal, 'health check');
    }
  }

  /** Refuses new work and stops the backend (local: every sandbox process). Idempotent. */
  shutdown(): Promise<void> {
    this.stopping ??= (async () => {
      this.cache.clear();
      await this.backend.shutdown();
    })();
    return this.stopping;
  }

  private async executeWithRecovery(sessionId: string, request: ExecRequest, signal: AbortSignal): Promise<SessionExecResult> {
    // C-AG-15: one key for every attempt of this call, so no attempt can run the command a second time.
    const exec: ExecRequest = { ...request, idempotency_key: request.idempotency_key ?? randomUUID() };
    let resolved = await this.resolve(sessionId, signal);
    let reacquired = false;
    let reassigned = false;
    /** The failure of an attempt that may have reached the agent, set while its one re-ask runs. */
    let lostAnswer: unknown;
    for (;;) {
      const { handle } = resolved;
      const finished = this.backend.beginCommand?.(handle);
      try {
        const response = await this.agent.exec(handle.agentUrl, handle.token, exec, signal);
        this.backend.touch(handle);
        const sandboxLoss = addLoss(resolved.loss, reassigned ? SHELL_ONLY : undefined);
        return { response, sandboxRecreated: sandboxLoss !== undefined, sandboxLoss, acquirePath: resolved.path };
      } catch (error) {
        const kind = classifyAgentFailure(error);
        if (kind === 'aborted' || signal.aborted) throw toSessionError(error, signal);
        if (kind === 'network' && lostAnswer === undefined) {
          // The answer was lost after the request may have reached the agent. Asking again with the same key is
          // safe (C-AG-15): the agent joins the command if it still runs, or returns its stored result.
          lostAnswer = error;
          continue;
        }
        // The sandbox behind this handle may be gone: the next lookup must ask the backend (C-K8S-7).
        if (kind === 'network' || kind === 'not-delivered') this.cache.invalidate(sessionId, handle.agentUrl);
        // The re-ask got no answer of the command either (no agent, a restarted one, the network again): it may
        // have run on a sandbox that is gone, so it is not run elsewhere (C-K8S-7); the lost answer is the news.
        if (lostAnswer !== undefined) throw withStopReason(toSessionError(lostAnswer, signal), this.backend.stopReason?.(sessionId));
        if (kind === 'not-delivered' && !reacquired) {
          // The command certainly did not run, so running it on a re-resolved sandbox cannot run it twice.
          reacquired = true;
          const next = await this.resolve(sessionId, signal);
          resolved = { ...next, recreated: resolved.recreated || next.recreated, loss: addLoss(resolved.loss, next.loss) };
          continue;
        }
        if (kind === 'not-assigned' && !reassigned) {
          // A claimed sandbox whose agent restarted unassigned: 503 precedes execution, so a retry is safe.
          reassigned = true;
          await this.backend.reassign(handle, signal);
          continue;
        }
        // `network`: the request may have reached the agent — no blind retry, the command may have run.
        throw withStopReason(toSessionError(error, signal), this.backend.stopReason?.(sessionId));
      } finally {
        finished?.();
      }
    }
  }

  private async resolve(sessionId: string, signal: AbortSignal, trigger: AcquireTrigger = 'call'): Promise<Resolved> {
    const started = this.clock.now();
    const cached = this.cache.get(sessionId);
    if (cached) {
      this.metrics.lookup('cache', 'hit');
      this.metrics.acquired('cache', this.secondsSince(started));
      return { handle: cached, path: 'cache', recreated: false };
    }
    this.metrics.lookup('cache', 'miss');
    // Joining an acquisition in flight (eager `prepare`, a concurrent command) is not another backend lookup: the
    // flight counts and times itself once (C-K8S-4, C-MCP-13), so one claim never reads as two.
    if (this.flights.has(sessionId)) this.metrics.lookup('backend', 'shared');
    try {
      const handle = await this.flights.run(sessionId, signal, (shared) => this.acquire(sessionId, shared, trigger));
      return { handle, path: handle.path, recreated: handle.recreated === true, loss: lossOf(handle) };
    } catch (error) {
      throw toSessionError(error, signal);
    }
  }

  /** The one backend acquisition of a single flight, for whoever started it; cached before the flight ends. */
  private async acquire(sessionId: string, shared: AbortSignal, trigger: AcquireTrigger): Promise<SandboxHandle> {
    const started = this.clock.now();
    let acquired: SandboxHandle;
    try {
      acquired = await this.backend.acquire(sessionId, shared);
    } catch (error) {
      this.metrics.acquisition(trigger, 'error');
      // Aborted = every waiter gave up: not a backend failure.
      if (!shared.aborted) this.metrics.lookup('backend', 'error');
      throw error;
    }
    this.metrics.acquisition(trigger, 'ok');
    this.metrics.lookup('backend', acquired.path === 'discover' ? 'hit' : 'miss');
    this.metrics.acquired(acquired.path, this.secondsSince(started));
    // The cached copy is not "recreated": only the calls that waited for this acquisition lost state.
    if (!this.stopping) this.cache.set(sessionId, { ...acquired, recreated: false });
    return acquired;
  }

  private assertRunning(): void {
    if (this.stopping) throw new SessionError(SessionErrorCode.ShuttingDown, 'server is shutting down');
  }

  private secondsSince(started: number): number {
    return Math.max(0, this.clock.now() - started) / 1000;
  }
}

/** A command whose sandbox the backend stopped says why first (issue 22: "the result says why"). */
function withStopReason(error: SessionError, reason: string | undefined): SessionError {
  return reason === undefined ? error : new SessionError(error.code, `${reason} (${error.message})`, { cause: error });
}

function outcomeOf(response: ExecResponse): ExecOutcome {
  if (response.cancelled) return 'cancelled';
  if (response.timed_out) return 'timeout';
  return response.exit_code === 0 ? 'ok' : 'nonzero';
}

/** Maps any failure to the lib's one error class with a model-safe message. */
function toSessionError(error: unknown, signal: AbortSignal, context?: string): SessionError {
  if (error instanceof SessionError) return error;
  const kind = classifyAgentFailure(error);
  if (error instanceof FlightAbortedError || kind === 'aborted' || signal.aborted) {
    return new SessionError(SessionErrorCode.Cancelled, 'request cancelled by the client', { cause: error });
  }
  if (kind !== 'unknown') return new SessionError(SessionErrorCode.AgentFailure, describeAgentFailure(error), { cause: error });
  const message = error instanceof Error ? error.message : String(error);
  return new SessionError(SessionErrorCode.BackendFailure, `${context ?? 'resolve sandbox'}: ${message}`, { cause: error });
}
