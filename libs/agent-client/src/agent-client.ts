import { Agent, request, type IncomingMessage, type RequestOptions } from 'node:http';
import { urlToHttpOptions } from 'node:url';
import { AgentError, AgentErrorCode, type AgentOperation } from './agent-error.js';
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
  private readonly agent = new Agent({ keepAlive: true, maxSockets: 256, scheduling: 'lifo' });
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

  /** Closes idle keep-alive sockets (for shutdown and tests). */
  close(): void {
    this.agent.destroy();
  }

  private call<T>(call: Call): Promise<T> {
    const url = `${call.baseUrl}${call.path}`;
    const fail = (code: AgentErrorCode, detail: string, status?: number, agentMessage?: string, errno?: string): AgentError =>
      new AgentError(code, call.op, url, detail, status, agentMessage, errno);
    return new Promise<T>((resolve, reject) => {
      if (call.signal?.aborted) return reject(fail(AgentErrorCode.Aborted, 'request aborted'));
      const payload = call.body === undefined ? undefined : Buffer.from(JSON.stringify(call.body));
      const headers: Record<string, string | number> = { accept: 'application/json' };
      if (payload) Object.assign(headers, { 'content-type': 'application/json', 'content-length': payload.length });
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
      const req = request({ ...target(call.baseUrl, call.path), method: call.method, headers, agent: call.fresh ? false : this.agent });
      const sentAt = performance.now();
      const onAbort = (): void => {
        settle(fail(AgentErrorCode.Aborted, 'request aborted'));
        req.destroy();
      };
      const timer = call.timeoutMs
        ? setTimeout(() => {
            settle(fail(AgentErrorCode.Network, `no response within ${call.timeoutMs} ms`));
            req.destroy();
          }, call.timeoutMs)
        : undefined;
      call.signal?.addEventListener('abort', onAbort, { once: true });
      let responded = false;
      // Once a response arrived, failures are reported by readBody (size cap, aborted body), not as Network.
      req.on('error', (error: NodeJS.ErrnoException) => {
        if (responded) return;
        if (!call.fresh && isStaleSocket(req.reusedSocket, error, sentAt) && finish()) {
          // The agent closed this idle keep-alive socket as we picked it (it restarted, drained or timed it out)
          // and the peer reset our write at once, so it never processed the request. Retry once on a new
          // connection; a dead agent then gives ECONNREFUSED, which callers treat as "not delivered" (C-K8S-7).
          // Node documents this retry for `reusedSocket`; docs/server.md, "Agent connections".
          this.call<T>({ ...call, fresh: true }).then(resolve, reject);
          return;
        }
        settle(fail(AgentErrorCode.Network, error.message, undefined, undefined, error.code));
      });
      req.on('response', (res) => {
        responded = true;
        readBody(res, this.maxResponseBytes).then(
          (body) => settle(...interpret<T>(res.statusCode ?? 0, body, fail)),
          (error: Error) => settle(fail(AgentErrorCode.Decode, error.message, res.statusCode)),
        );
      });
      req.end(payload);
    });
  }
}

/** Local agents without network listen on a Unix socket, named `unix:<absolute path>`; others by `http://…`. */
export const UNIX_URL_PREFIX = 'unix:';

function target(baseUrl: string, path: string): RequestOptions {
  if (baseUrl.startsWith(UNIX_URL_PREFIX)) return { socketPath: baseUrl.slice(UNIX_URL_PREFIX.length), path, host: 'localhost' };
  return urlToHttpOptions(new URL(`${baseUrl}${path}`));
}

function isStaleSocket(reused: boolean, error: NodeJS.ErrnoException, sentAt: number): boolean {
  return reused && STALE_SOCKET_ERRORS.has(error.code ?? '') && performance.now() - sentAt < STALE_SOCKET_WINDOW_MS;
}

type Fail = (code: AgentErrorCode, detail: string, status?: number, agentMessage?: string) => AgentError;

function interpret<T>(status: number, body: Buffer, fail: Fail): [AgentError | undefined, T?] {
  if (status !== 200) {
    const snippet = body.subarray(0, BODY_SNIPPET_BYTES).toString('utf8');
    let message = snippet;
    try {
      const parsed = JSON.parse(body.toString('utf8')) as { error?: unknown };
      if (typeof parsed.error === 'string') message = parsed.error;
    } catch {
      // Not the agent's JSON envelope: keep the raw snippet.
    }
    return [fail(AgentErrorCode.Status, `unexpected status ${status}`, status, message)];
  }
  if (body.length === 0) return [undefined, {} as T];
  try {
    return [undefined, JSON.parse(body.toString('utf8')) as T];
  } catch (error) {
    return [fail(AgentErrorCode.Decode, `invalid JSON response: ${(error as Error).message}`, status)];
  }
}

function readBody(res: IncomingMessage, limit: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    res.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        // Reject before destroying: destroy() emits 'aborted' synchronously.
        reject(new Error(`response body exceeds maximum size of ${limit} bytes`));
        res.destroy();
        return;
      }
      chunks.push(chunk);
    });
    res.on('end', () => resolve(Buffer.concat(chunks)));
    res.on('error', reject);
    res.on('aborted', () => reject(new Error('response aborted')));
  });
}
