import { Writable } from 'node:stream';
import type { ExecRequest, ExecResponse, OutputResponse } from '@cli-mcp/agent-client';
import type { BackendHealth, CancelOutcome, SessionExecResult } from '@cli-mcp/session';
import { pino, type Logger } from 'pino';
import type { ServerConfig } from '../src/config/server-config.js';
import type { SessionService } from '../src/sessions/session-service.port.js';

type Method = keyof SessionService;

export interface RecordedCall {
  readonly method: Method;
  readonly args: readonly unknown[];
}

/**
 * Strict fake of the session port: a method without a programmed behaviour records an unexpected call and
 * throws. The handler under test may swallow the throw (it maps errors to tool text), so tests also check
 * `unexpected` — see `assertNoUnexpectedCalls`.
 */
export class StrictSessionService implements SessionService {
  readonly calls: RecordedCall[] = [];
  readonly unexpected: RecordedCall[] = [];
  private readonly behaviours = new Map<Method, (...args: never[]) => Promise<unknown>>();

  onExecute(fn: (sessionId: string, request: ExecRequest, signal: AbortSignal) => Promise<SessionExecResult>): this {
    return this.program('execute', fn);
  }

  onPrepare(fn: (sessionId: string) => Promise<void>): this {
    return this.program('prepare', fn);
  }

  onCancel(fn: (sessionId: string, requestId: string) => Promise<CancelOutcome>): this {
    return this.program('cancel', fn);
  }

  onPeek(fn: (sessionId: string, requestId: string) => Promise<OutputResponse | undefined>): this {
    return this.program('peek', fn);
  }

  onEnd(fn: (sessionId: string, signal: AbortSignal) => Promise<void>): this {
    return this.program('end', fn);
  }

  onCheckHealth(fn: (signal: AbortSignal) => Promise<BackendHealth | void>): this {
    return this.program('checkHealth', fn);
  }

  onShutdown(fn: () => Promise<void>): this {
    return this.program('shutdown', fn);
  }

  execute(sessionId: string, request: ExecRequest, signal: AbortSignal): Promise<SessionExecResult> {
    return this.invoke('execute', [sessionId, request, signal]) as Promise<SessionExecResult>;
  }

  prepare(sessionId: string): Promise<void> {
    return this.invoke('prepare', [sessionId]) as Promise<void>;
  }

  cancel(sessionId: string, requestId: string): Promise<CancelOutcome> {
    return this.invoke('cancel', [sessionId, requestId]) as Promise<CancelOutcome>;
  }

  peek(sessionId: string, requestId: string): Promise<OutputResponse | undefined> {
    return this.invoke('peek', [sessionId, requestId]) as Promise<OutputResponse | undefined>;
  }

  end(sessionId: string, signal: AbortSignal): Promise<void> {
    return this.invoke('end', [sessionId, signal]) as Promise<void>;
  }

  checkHealth(signal: AbortSignal): Promise<void> {
    return this.invoke('checkHealth', [signal]) as Promise<void>;
  }

  shutdown(): Promise<void> {
    return this.invoke('shutdown', []) as Promise<void>;
  }

  callsOf(method: Method): RecordedCall[] {
    return this.calls.filter((call) => call.method === method);
  }

  assertNoUnexpectedCalls(): void {
    if (this.unexpected.length > 0) {
      throw new Error(`unexpected session calls: ${this.unexpected.map((call) => call.method).join(', ')}`);
    }
  }

  private program(method: Method, fn: (...args: never[]) => Promise<unknown>): this {
    this.behaviours.set(method, fn);
    return this;
  }

  private invoke(method: Method, args: unknown[]): Promise<unknown> {
    const call = { method, args };
    this.calls.push(call);
    const behaviour = this.behaviours.get(method) as ((...a: unknown[]) => Promise<unknown>) | undefined;
    if (!behaviour) {
      this.unexpected.push(call);
      return Promise.reject(new Error(`unexpected call: SessionService.${method}`));
    }
    return behaviour(...args);
  }
}

/** An agent response with everything defaulted. */
export function execResponse(overrides: Partial<ExecResponse> = {}): ExecResponse {
  const stdout = overrides.stdout ?? '';
  const stderr = overrides.stderr ?? '';
  return {
    stdout,
    stderr,
    exit_code: 0,
    duration_ms: 5,
    timed_out: false,
    cancelled: false,
    truncated: false,
    state_reset: false,
    stdout_bytes: Buffer.byteLength(stdout),
    stderr_bytes: Buffer.byteLength(stderr),
    ...overrides,
  };
}

export function execResult(overrides: Partial<ExecResponse> = {}, extra: Partial<SessionExecResult> = {}): SessionExecResult {
  return { response: execResponse(overrides), sandboxRecreated: false, acquirePath: 'cache', ...extra };
}

/** A valid configuration as the loader would produce it with defaults (HTTP on loopback). */
export function testConfig(overrides: Partial<ServerConfig> = {}): ServerConfig {
  const base: ServerConfig = {
    version: '0.1.0-test',
    transport: 'http',
    http: {
      address: '127.0.0.1:0',
      host: '127.0.0.1',
      port: 0,
      loopback: true,
      authToken: undefined,
      authTokenFile: undefined,
      allowedHosts: { any: false, names: [] },
      tls: undefined,
    },
    stdioSessionId: 'stdio-test',
    backend: 'local',
    tool: {
      defaultTimeoutSeconds: 60,
      maxTimeoutSeconds: 300,
      resultFormat: 'text',
      maxOutputChars: 30_000,
      progressIntervalMs: 5000,
      yieldAfterMs: 0,
      instructions: 'Test instructions.',
    },
    cacheTtlMs: 30_000,
    eagerAcquire: false,
    shutdownGraceMs: 310_000,
    hmacKey: { path: '/tmp/cli-mcp-test/hmac.key', generate: true },
    local: { stateDir: '/tmp/cli-mcp-test', sandboxDir: '/tmp/cli-mcp-test', resetState: false, stdioSessionGenerated: true, isolation: 'none', network: 'host', readOnlyBinds: [], maxSessions: 4, idleTimeoutMs: 60_000, warmPoolSize: 0 },
    kubernetes: {
      podConfig: undefined,
      namespace: undefined,
      instanceName: undefined,
      sandboxImage: undefined,
      kubeconfig: undefined,
      kubeconfigSecret: undefined,
      sandboxServiceAccount: undefined,
      cpuRequest: undefined,
      cpuLimit: undefined,
      memoryRequest: undefined,
      memoryLimit: undefined,
      imagePullPolicy: undefined,
      sandboxEnv: undefined,
      activityIntervalMs: 30_000,
    },
    readyTimeoutMs: 60_000,
    logLevel: 'info',
  };
  return { ...base, ...overrides };
}

/** A pino logger writing JSON lines into memory, for assertions on what is (not) logged. */
export function memoryLogger(): { logger: Logger; lines: () => Array<Record<string, unknown>>; text: () => string } {
  const chunks: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      chunks.push(chunk.toString('utf8'));
      done();
    },
  });
  const logger = pino({ level: 'trace', base: { server: 'cli-mcp-server' } }, sink);
  const text = (): string => chunks.join('');
  return {
    logger,
    text,
    lines: () =>
      text()
        .split('\n')
        .filter((line) => line !== '')
        .map((line) => JSON.parse(line) as Record<string, unknown>),
  };
}
