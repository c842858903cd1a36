/** One running `bash` call, as seen by the registry. */
export interface RunningCall {
  /** Aborted by `notifications/cancelled` or at the end of the shutdown grace (C-MCP-9, C-HTTP-4). */
  readonly signal: AbortSignal;
  /** Must be called exactly once when the call finishes. */
  release(): void;
}

type Key = string;

/**
 * The calls running in this process, keyed `"<sessionId>:<JSON-RPC id>"` (C-MCP-9). In stateless HTTP a
 * `notifications/cancelled` arrives on a new POST, i.e. a new `Server`, so the SDK's own per-server map cannot
 * find the call; this process-wide map can. It also tells shutdown what is still running (C-HTTP-4).
 */
export class RunningCalls {
  private readonly calls = new Map<Key, Set<AbortController>>();
  private count = 0;
  private idleWaiters: Array<() => void> = [];

  get size(): number {
    return this.count;
  }

  register(sessionId: string, requestId: string | number): RunningCall {
    const key = keyOf(sessionId, requestId);
    const controller = new AbortController();
    // Two clients of one session may reuse a JSON-RPC id; keep both, a cancel aborts both (rare, harmless).
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
        entry.delete(controller);
        if (entry.size === 0 && this.calls.get(key) === entry) this.calls.delete(key);
        this.count -= 1;
        if (this.count === 0) this.wakeIdleWaiters();
      },
    };
  }

  /** Aborts the matching call(s) of this process; false when none runs here. */
  abort(sessionId: string, requestId: string | number, reason: unknown): boolean {
    const entry = this.calls.get(keyOf(sessionId, requestId));
    if (!entry || entry.size === 0) return false;
    for (const controller of entry) controller.abort(reason);
    return true;
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

function keyOf(sessionId: string, requestId: string | number): Key {
  // JSON-RPC distinguishes the id 1 from "1"; so does the key.
  return `${sessionId}:${typeof requestId}:${String(requestId)}`;
}
