/** One running `bash` call, as seen by the registry. */
export interface RunningCall {
  /**
   * Aborted by `notifications/cancelled`, at the end of the shutdown grace (C-MCP-9, C-HTTP-4), or when the signal
   * given to `register` (the request's) aborts: one signal per call, no `AbortSignal.any` (issue 11).
   */
  readonly signal: AbortSignal;
  /** Must be called exactly once when the call finishes. */
  release(): void;
}

type Key = string;

/** What `abort` found: the one call of that name, several (a name that names none of them), or none here. */
export type AbortOutcome = 'aborted' | 'ambiguous' | 'absent';

/**
 * The calls running in this process, keyed by session and the call's agent request id (C-MCP-9), which names the
 * issuing client as well as its JSON-RPC id (`agent-request-id.ts`). In stateless HTTP a `notifications/cancelled`
 * arrives on a new POST, i.e. a new `Server`, so the SDK's own per-server map cannot find the call; this
 * process-wide map can. It also tells shutdown what is still running (C-HTTP-4).
 */
export class RunningCalls {
  private readonly calls = new Map<Key, Set<AbortController>>();
  private count = 0;
  private idleWaiters: Array<() => void> = [];

  get size(): number {
    return this.count;
  }

  register(sessionId: string, agentRequestId: string, request?: AbortSignal): RunningCall {
    const key = keyOf(sessionId, agentRequestId);
    const controller = new AbortController();
    const follow = (): void => controller.abort(request?.reason);
    if (request?.aborted) follow();
    else request?.addEventListener('abort', follow, { once: true });
    // Clients that got no client id may reuse a JSON-RPC id in one session: keep both; a cancel then names neither.
    const entry = this.calls.get(key) ?? new Set<AbortController>();
    entry.add(controller);
    this.calls.set(key, entry);
    this.count += 1;
    let released = false;
    return {
      signal: controller.signal,
      release: () => {
        if (released) return;
        released = true;
        request?.removeEventListener('abort', follow);
        entry.delete(controller);
        if (entry.size === 0 && this.calls.get(key) === entry) this.calls.delete(key);
        this.count -= 1;
        if (this.count === 0) this.wakeIdleWaiters();
      },
    };
  }

  /** Aborts the one call of this name in this process — never one of several namesakes (C-MCP-9). */
  abort(sessionId: string, agentRequestId: string, reason: unknown): AbortOutcome {
    const entry = this.calls.get(keyOf(sessionId, agentRequestId));
    if (!entry || entry.size === 0) return 'absent';
    if (entry.size > 1) return 'ambiguous';
    for (const controller of entry) controller.abort(reason);
    return 'aborted';
  }

  /** Aborts every running call (end of the shutdown grace); returns how many there were. */
  abortAll(reason: unknown): number {
    let aborted = 0;
    for (const entry of this.calls.values()) {
      for (const controller of entry) {
        controller.abort(reason);
        aborted += 1;
      }
    }
    return aborted;
  }

  /** Resolves when no call runs (at once if none does). */
  whenIdle(): Promise<void> {
    if (this.count === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  private wakeIdleWaiters(): void {
    const waiters = this.idleWaiters;
    this.idleWaiters = [];
    for (const wake of waiters) wake();
  }
}

function keyOf(sessionId: string, agentRequestId: string): Key {
  return `${sessionId}\n${agentRequestId}`;
}
