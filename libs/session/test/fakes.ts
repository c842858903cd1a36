/** Strict fakes and fixtures for libs/session unit tests: an unexpected call is recorded and fails the test. */
import {
  AGENT_ERROR_WIRE, AgentError, AgentErrorCode, type AgentWireCode, type CancelResponse, type ExecRequest, type ExecResponse, type OutputResponse,
} from '@cli-mcp/agent-client';
import type { BackendHealth, FindOptions, SandboxBackend, SandboxHandle } from '../src/sandbox-backend.port.js';

export { FakeClock } from '@cli-mcp/testing';

type AnyFn = (...args: never[]) => unknown;

/** Base of strict fakes: every method must be given an implementation with `on()` before it is called. */
export class Strict<M extends Record<string, AnyFn>> {
  readonly calls: Array<{ method: keyof M; args: unknown[] }> = [];
  readonly unexpected: string[] = [];
  private readonly impls: Partial<M> = {};

  on<K extends keyof M>(method: K, impl: M[K]): this {
    this.impls[method] = impl;
    return this;
  }

  callsOf(method: keyof M): unknown[][] {
    return this.calls.filter((c) => c.method === method).map((c) => c.args);
  }

  protected invoke<K extends keyof M>(method: K, args: unknown[]): ReturnType<M[K]> {
    this.calls.push({ method, args });
    const impl = this.impls[method];
    if (!impl) {
      this.unexpected.push(String(method));
      throw new Error(`unexpected call ${String(method)}`);
    }
    return (impl as unknown as (...a: unknown[]) => ReturnType<M[K]>)(...args);
  }
}

interface BackendMethods extends Record<string, AnyFn> {
  acquire: SandboxBackend['acquire'];
  find: SandboxBackend['find'];
  reassign: SandboxBackend['reassign'];
  touch: SandboxBackend['touch'];
  end: SandboxBackend['end'];
  checkHealth: SandboxBackend['checkHealth'];
  shutdown: SandboxBackend['shutdown'];
  beginCommand: (handle: SandboxHandle) => () => void;
  stopReason: (sessionId: string) => string | undefined;
}

export class StrictBackend extends Strict<BackendMethods> implements SandboxBackend {
  readonly kind = 'local' as const;
  acquire(sessionId: string, signal: AbortSignal): Promise<SandboxHandle> {
    return this.async('acquire', [sessionId, signal]);
  }
  find(sessionId: string, signal: AbortSignal, options?: FindOptions): Promise<SandboxHandle | undefined> {
    return this.async('find', options === undefined ? [sessionId, signal] : [sessionId, signal, options]);
  }
  reassign(handle: SandboxHandle, signal: AbortSignal): Promise<void> {
    return this.async('reassign', [handle, signal]);
  }
  touch(handle: SandboxHandle): void {
    this.invoke('touch', [handle]);
  }
  end(sessionId: string, signal: AbortSignal): Promise<void> {
    return this.async('end', [sessionId, signal]);
  }
  checkHealth(signal: AbortSignal): Promise<BackendHealth | void> {
    return this.async('checkHealth', [signal]);
  }
  shutdown(): Promise<void> {
    return this.async('shutdown', []);
  }
  stopReason(sessionId: string): string | undefined {
    return this.invoke('stopReason', [sessionId]);
  }
  beginCommand(handle: SandboxHandle): () => void {
    return this.invoke('beginCommand', [handle]);
  }
  private async async<K extends keyof BackendMethods>(method: K, args: unknown[]): Promise<Awaited<ReturnType<BackendMethods[K]>>> {
    return (await this.invoke(method, args)) as Awaited<ReturnType<BackendMethods[K]>>;
  }
}

interface AgentMethods extends Record<string, AnyFn> {
  exec: (baseUrl: string, token: string, body: ExecRequest, signal?: AbortSignal) => Promise<ExecResponse>;
  cancel: (baseUrl: string, token: string, requestId?: string, signal?: AbortSignal) => Promise<CancelResponse>;
  output: (baseUrl: string, token: string, requestId?: string, signal?: AbortSignal) => Promise<OutputResponse>;
}

export class StrictAgent extends Strict<AgentMethods> {
  exec(baseUrl: string, token: string, body: ExecRequest, signal?: AbortSignal): Promise<ExecResponse> {
    return Promise.resolve().then(() => this.invoke('exec', [baseUrl, token, body, signal]));
  }
  cancel(baseUrl: string, token: string, requestId?: string, signal?: AbortSignal): Promise<CancelResponse> {
    return Promise.resolve().then(() => this.invoke('cancel', [baseUrl, token, requestId, signal]));
  }
  output(baseUrl: string, token: string, requestId?: string, signal?: AbortSignal): Promise<OutputResponse> {
    return Promise.resolve().then(() => this.invoke('output', [baseUrl, token, requestId, signal]));
  }
}

export function handle(sessionId: string, overrides: Partial<SandboxHandle> = {}): SandboxHandle {
  return {
    sessionId, agentUrl: 'http://127.0.0.1:41000', token: 't'.repeat(64), sandboxName: 'pid-1', path: 'create', ...overrides,
  };
}

export function execResponse(overrides: Partial<ExecResponse> = {}): ExecResponse {
  return {
    stdout: 'out', stderr: '', exit_code: 0, duration_ms: 3, timed_out: false, cancelled: false, truncated: false,
    state_reset: false, stdout_bytes: 3, stderr_bytes: 0, ...overrides,
  };
}

export const agentErrors = {
  refused: (url = 'http://127.0.0.1:41000/exec') =>
    new AgentError(AgentErrorCode.Network, 'connect ECONNREFUSED 127.0.0.1:41000', { op: 'execute', url, errno: 'ECONNREFUSED' }),
  reset: (url = 'http://127.0.0.1:41000/exec') =>
    new AgentError(AgentErrorCode.Network, 'socket hang up', { op: 'execute', url, errno: 'ECONNRESET' }),
  notAssigned: (url = 'http://127.0.0.1:41000/exec') =>
    new AgentError(AgentErrorCode.NotAssigned, 'unexpected status 503', { op: 'execute', url, status: 503, agentMessage: 'agent not assigned' }),
  /** The agent answered with `code` (its status from the one table), e.g. `status(AgentErrorCode.Internal, 'boom')`. */
  status: (code: AgentWireCode, message: string = AGENT_ERROR_WIRE[code].message, url = 'http://127.0.0.1:41000/exec') =>
    new AgentError(code, `unexpected status ${AGENT_ERROR_WIRE[code].status}`, { op: 'execute', url, status: AGENT_ERROR_WIRE[code].status, agentMessage: message }),
  aborted: (url = 'http://127.0.0.1:41000/exec') => new AgentError(AgentErrorCode.Aborted, 'request aborted', { op: 'execute', url }),
};

export { deferred } from '@cli-mcp/testing';

interface LocalAgentMethods extends Record<string, AnyFn> {
  assign: (baseUrl: string, token: string, signal?: AbortSignal) => Promise<void>;
  health: (baseUrl: string, signal?: AbortSignal) => Promise<{ status: 'ok'; assigned: boolean; busy: boolean }>;
  output: (baseUrl: string, token: string, requestId?: string, signal?: AbortSignal) => Promise<OutputResponse>;
}

/** Strict fake of the agent calls the local backend makes itself. */
export class StrictLocalAgent extends Strict<LocalAgentMethods> {
  assign(baseUrl: string, token: string, signal?: AbortSignal): Promise<void> {
    return Promise.resolve().then(() => this.invoke('assign', [baseUrl, token, signal]));
  }
  health(baseUrl: string, signal?: AbortSignal): Promise<{ status: 'ok'; assigned: boolean; busy: boolean }> {
    return Promise.resolve().then(() => this.invoke('health', [baseUrl, signal]));
  }
  output(baseUrl: string, token: string, requestId?: string, signal?: AbortSignal): Promise<OutputResponse> {
    return Promise.resolve().then(() => this.invoke('output', [baseUrl, token, requestId, signal]));
  }
}
