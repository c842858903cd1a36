import type { ExecRequest, ExecResponse } from '@cli-mcp/agent-client';

/** How a sandbox was found for a session (metric label of `cli_mcp_session_acquire_seconds{path}`, §9). */
export type AcquirePath = 'cache' | 'discover' | 'claim' | 'create';

/**
 * What a session lost when its previous sandbox (or its shell process) went away (issue 8 §5): the shell state
 * (cwd, variables, functions, aliases, jobs) always; the files in `/workspace` only when the sandbox was replaced
 * whole (a new pod, a reaped local session) — a local agent crash or a container restart keeps them.
 */
export interface SandboxLoss {
  readonly shellState: true;
  readonly files: boolean;
  /** Why the sandbox was stopped, when the backend stopped it (e.g. a bound, issue 22). */
  readonly reason?: string;
}

/** Where a session's agent listens and how to authenticate to it. Never logged: it carries the token. */
export interface SandboxHandle {
  sessionId: string;
  /** `http://<host>:<port>` of the session's sandbox agent. */
  agentUrl: string;
  /** Bearer token for the agent (HMAC of the session id, C-AUTH-1). */
  token: string;
  /** Backend-specific name (pod name, local process id) for logs; bounded, never a metric label. */
  sandboxName: string;
  path: AcquirePath;
  /**
   * The session had a sandbox before that is gone (pod deleted, agent process died): this one is new and the
   * shell state was lost (C-K8S-7). The tool result says so.
   */
  recreated?: boolean;
  /** With `recreated`: what was lost. Absent on a recreated handle = everything (a new sandbox). */
  lost?: SandboxLoss;
}

export interface FindOptions {
  /**
   * Wait, bounded by the signal, for a sandbox that exists but is still starting (a cancel must reach the command
   * that another replica sends once it serves, C-MCP-9). Backends whose sandboxes are never seen starting ignore it.
   */
  waitForStart?: boolean;
}

/**
 * A sandbox backend (`local` or `kubernetes`): finds or creates the one sandbox of a session. The
 * `SessionManager` owns caching, single flight, recovery rules and metrics; a backend only talks to its
 * substrate (processes, the Kubernetes API).
 */
export interface SandboxBackend {
  readonly kind: 'local' | 'kubernetes';
  /** Finds the session's sandbox or creates/claims one; waits until its agent is ready. */
  acquire(sessionId: string, signal: AbortSignal): Promise<SandboxHandle>;
  /** Finds the session's existing sandbox without creating one (cancel routing, C-MCP-9). */
  find(sessionId: string, signal: AbortSignal, options?: FindOptions): Promise<SandboxHandle | undefined>;
  /** Re-delivers the token to an agent that restarted unassigned (C-K8S-7). */
  reassign(handle: SandboxHandle, signal: AbortSignal): Promise<void>;
  /** Records activity (throttled by the backend, off the critical path, C-K8S-6). Must not throw. */
  touch(handle: SandboxHandle): void;
  /**
   * Optional: marks a command as running in the sandbox until the returned function is called, so idle reaping
   * (local backend) never ends a session mid-command. Must not throw.
   */
  beginCommand?(handle: SandboxHandle): () => void;
  /**
   * Optional: the backend reports a session whose sandbox it knows is gone (crashed, reaped, released), so the
   * manager drops its cached handle at once instead of finding out through a failed request.
   */
  onSandboxGone?(listener: (sessionId: string) => void): void;
  /** Why the backend stopped the session's sandbox (e.g. a bound, issue 22), so the command it cut off can say so. */
  stopReason?(sessionId: string): string | undefined;
  /** Deletes the session's sandbox(es) and secret; idempotent (C-HTTP-1, C-K8S-8). */
  end(sessionId: string, signal: AbortSignal): Promise<void>;
  /**
   * Throws a SessionError when the backend cannot create sandboxes (C-HTTP-2); may report details for `/health`
   * (local: the isolation and network in force and any warning about them, C-SEC-4).
   */
  checkHealth(signal: AbortSignal): Promise<BackendHealth | void>;
  /** Stops background work and (local) every sandbox process. */
  shutdown(): Promise<void>;
}

/** What a healthy backend reports for `/health` (bounded, never secrets). */
export interface BackendHealth {
  details?: Record<string, unknown>;
}

/** What the tool handler gets back from `SessionManager.execute`. */
export interface SessionExecResult {
  response: ExecResponse;
  /** The previous sandbox vanished and a new one was made: shell state was lost (C-K8S-7). */
  sandboxRecreated: boolean;
  /** Set with `sandboxRecreated`: exactly what the session lost (the tool result says it). */
  sandboxLoss?: SandboxLoss;
  acquirePath: AcquirePath;
}

export type { ExecRequest, ExecResponse };
