import { AgentConnections } from './agent-connections.js';
import { AgentError, AgentErrorCode, wireCodeOf, type AgentOperation } from './agent-error.js';
import { networkFailure } from './network-failure.js';
import type {
  AssignRequest, CancelRequest, CancelResponse, ExecRequest, ExecResponse, HealthResponse, OutputRequest, OutputResponse,
} from './wire.js';

export interface AgentClientOptions {
  /** Largest accepted response body (the agent's own output buffers keep it far below this). */
  maxResponseBytes?: number;
  /** Timeout of `/assign`, `/cancel` and `/health` calls; `/exec` is bounded by the caller's signal only. */
  controlTimeoutMs?: number;
}

const DEFAULT_MAX_RESPONSE_BYTES = 16 * 1024 * 1024;
const DEFAULT_CONTROL_TIMEOUT_MS = 10_000;
const BODY_SNIPPET_BYTES = 512;
// A pooled keep-alive socket the agent closed (idle close, drain, exit) fails like this before any response.
const STALE_SOCKET_ERRORS = new Set(['ECONNRESET', 'EPIPE']);
// ...and it fails within one round trip of the write. A later reset means the agent died while it had the request.
const STALE_SOCKET_WINDOW_MS = 100;

interface Call {
  op: AgentOperation;
  baseUrl: string;
  path: string;
  method: 'GET' | 'POST';
  token?: string;
  body?: unknown;
  signal?: AbortSignal;
  timeoutMs?: number;
  /** Set on the one retry after a stale pooled socket: a new connection, never from the pool. */
  fresh?: boolean;
}

/**
 * HTTP client for the sandbox agent (contract §4). Keep-alive connections keep the hot path at one round trip;
 * aborting `exec` closes the connection, which the agent treats as a cancel (C-AG-4, C-MCP-9).
 */
export class AgentClient {
  private readonly connections = new AgentConnections();
  private readonly maxResponseBytes: number;
  private readonly controlTimeoutMs: number;

  constructor(options: AgentClientOptions = {}) {
    this.maxResponseBytes = options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
    this.controlTimeoutMs = options.controlTimeoutMs ?? DEFAULT_CONTROL_TIMEOUT_MS;
  }

  exec(baseUrl: string, token: string, body: ExecRequest, signal?: AbortSignal): Promise<ExecResponse> {
    return this.call<ExecResponse>({ op: 'execute', baseUrl, path: '/exec', method: 'POST', token, body, signal });
  }

  async assign(baseUrl: string, token: string, signal?: AbortSignal): Promise<void> {
    const body: AssignRequest = { token };
    await this.call({ op: 'assign', baseUrl, path: '/assign', method: 'POST', body, signal, timeoutMs: this.controlTimeoutMs });
  }

  cancel(baseUrl: string, token: string, requestId?: string, signal?: AbortSignal): Promise<CancelResponse> {
    const body: CancelRequest = requestId === undefined ? {} : { request_id: requestId };
    return this.call<CancelResponse>({
      op: 'cancel', baseUrl, path: '/cancel', method: 'POST', token, body, signal, timeoutMs: this.controlTimeoutMs,
    });
  }

  /** The running command's latest output (`request_id` → only when it is that command). */
  output(baseUrl: string, token: string, requestId?: string, signal?: AbortSignal): Promise<OutputResponse> {
    const body: OutputRequest = requestId === undefined ? {} : { request_id: requestId };
    return this.call<OutputResponse>({
      op: 'output', baseUrl, path: '/output', method: 'POST', token, body, signal, timeoutMs: this.controlTimeoutMs,
    });
  }

  health(baseUrl: string, signal?: AbortSignal): Promise<HealthResponse> {
    return this.call<HealthResponse>({
      op: 'health_check', baseUrl, path: '/health', method: 'GET', signal, timeoutMs: this.controlTimeoutMs,
    });
  }

  /** Closes every connection (for shutdown and tests). */
  close(): void {
    this.connections.close();
  }

  private call<T>(call: Call): Promise<T> {
    // Only the first call waits for undici; the others go straight on (no extra await per call).
    const loading = this.connections.ready();
    return loading ? loading.then(() => this.send<T>(call)) : this.send<T>(call);
  }

  private send<T>(call: Call): Promise<T> {
    const url = `${call.baseUrl}${call.path}`;
    const fail = (code: AgentErrorCode, detail: string, status?: number, agentMessage?: string, errno?: string): AgentError =>
      new AgentError(code, detail, { op: call.op, url, status, agentMessage, errno });
    return new Promise<T>((resolve, reject) => {
      if (call.signal?.aborted) return reject(fail(AgentErrorCode.Aborted, 'request aborted'));
      const lease = this.connections.acquire(call.baseUrl, call.path, call.fresh === true);
      const headers: Record<string, string> = { accept: 'application/json' };
      const payload = call.body === undefined ? undefined : JSON.stringify(call.body);
      if (payload !== undefined) headers['content-type'] = 'application/json';
      if (call.token !== undefined) headers.authorization = `Bearer ${call.token}`;
      let settled = false;
      const finish = (): boolean => {
        if (settled) return false;
        settled = true;
        call.signal?.removeEventListener('abort', onAbort);
        if (timer) clearTimeout(timer);
        return true;
      };
      const settle = (error: AgentError | undefined, value?: T): void => {
        if (!finish()) return;
        if (error) reject(error);
        else resolve(value as T);
      };
      // Settle first, then destroy: the destroy fails the request, and that failure must not be reported.
      const abandon = (error: AgentError): void => {
        settle(error);
        this.connections.discard(lease);
      };
      const onAbort = (): void => abandon(fail(AgentErrorCode.Aborted, 'request aborted'));
      const timer = call.timeoutMs
        ? setTimeout(() => abandon(fail(AgentErrorCode.Network, `no response within ${call.timeoutMs} ms`)), call.timeoutMs)
        : undefined;
      call.signal?.addEventListener('abort', onAbort, { once: true });
      const sentAt = performance.now();
      const chunks: Buffer[] = [];
      let size = 0;
      let status = 0;
      lease.client.dispatch({ path: lease.path, method: call.method, headers, body: payload }, {
        onRequestStart: () => undefined,
        onResponseStart: (_controller, statusCode) => {
          status = statusCode;
        },
        onResponseData: (_controller, chunk) => {
          if (settled) return;
          size += chunk.length;
          if (size > this.maxResponseBytes) {
            abandon(fail(AgentErrorCode.BadResponse, `response body exceeds maximum size of ${this.maxResponseBytes} bytes`, status));
            return;
          }
          chunks.push(chunk);
        },
        onResponseEnd: () => {
          this.connections.release(lease);
          settle(...interpret<T>(status, Buffer.concat(chunks, size), fail));
        },
        onResponseError: (_controller, error: Error & { code?: string }) => {
          this.connections.discard(lease);
          if (settled) return;
          // Once a response arrived, a failure is of its body (as a cut-off body was with node:http), not Network.
          if (status !== 0) return settle(fail(AgentErrorCode.BadResponse, 'response aborted', status));
          const { errno, detail } = networkFailure(error);
          if (!call.fresh && isStaleSocket(lease.reused(), errno, sentAt) && finish()) {
            // The agent closed this idle keep-alive socket as we picked it (it restarted, drained or timed it out)
            // and the peer reset our write at once, so it never processed the request. Retry once on a new
            // connection; a dead agent then gives ECONNREFUSED, which callers treat as "not delivered" (C-K8S-7).
            // undici itself only catches a close that arrived before the write; docs/server.md, "Agent connections".
            this.call<T>({ ...call, fresh: true }).then(resolve, reject);
            return;
          }
          settle(fail(AgentErrorCode.Network, detail, undefined, undefined, errno));
        },
      });
    });
  }
}

function isStaleSocket(reused: boolean, errno: string | undefined, sentAt: number): boolean {
  return reused && STALE_SOCKET_ERRORS.has(errno ?? '') && performance.now() - sentAt < STALE_SOCKET_WINDOW_MS;
}

type Fail = (code: AgentErrorCode, detail: string, status?: number, agentMessage?: string) => AgentError;

function interpret<T>(status: number, body: Buffer, fail: Fail): [AgentError | undefined, T?] {
  if (status !== 200) {
    const snippet = body.subarray(0, BODY_SNIPPET_BYTES).toString('utf8');
    let message = snippet;
    let code: AgentErrorCode = AgentErrorCode.UnexpectedStatus;
    try {
      const parsed = JSON.parse(body.toString('utf8')) as { error?: unknown; code?: unknown };
      if (typeof parsed.error === 'string') message = parsed.error;
      // C-AG-15: the code decides; the text is only shown.
      code = wireCodeOf(parsed.code) ?? code;
    } catch {
      // Not the agent's JSON envelope: keep the raw snippet.
    }
    return [fail(code, `unexpected status ${status}`, status, message)];
  }
  if (body.length === 0) return [undefined, {} as T];
  try {
    return [undefined, JSON.parse(body.toString('utf8')) as T];
  } catch (error) {
    return [fail(AgentErrorCode.BadResponse, `invalid JSON response: ${(error as Error).message}`, status)];
  }
}
