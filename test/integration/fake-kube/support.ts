import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { get, request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ApiException, CoordinationV1Api, CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import { AGENT_ENTRY, builtAgentCommand, builtAgentExists, repoRoot, type AgentCommand } from '@cli-mcp/testing';

/** client-node clients for a kubeconfig written by the fake cluster. */
export function clientsFor(kubeconfigPath: string): { kc: KubeConfig; core: CoreV1Api; coordination: CoordinationV1Api } {
  const kc = new KubeConfig();
  kc.loadFromFile(kubeconfigPath);
  return { kc, core: kc.makeApiClient(CoreV1Api), coordination: kc.makeApiClient(CoordinationV1Api) };
}

/** What a failed client-node call carried: HTTP code, parsed Status body, headers. */
export interface CaughtApiError {
  code: number;
  status: { reason?: string; message?: string; code?: number; details?: Record<string, unknown> } | undefined;
  headers: Record<string, string>;
}

/** Awaits a client-node call that must fail with an ApiException. */
export async function apiError(call: Promise<unknown>): Promise<CaughtApiError> {
  try {
    await call;
  } catch (error) {
    if (!(error instanceof ApiException)) throw error;
    const body = (error as ApiException<unknown>).body;
    const status = typeof body === 'string' && body !== '' ? JSON.parse(body) : (body as CaughtApiError['status']);
    return { code: error.code, status, headers: error.headers };
  }
  throw new Error('expected the call to fail');
}

/** What `rawRequest` got back: status, headers and the parsed JSON body (or the raw text). */
export interface RawAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: any;
}

/**
 * One request to the fake API server (HTTPS trusting `ca`, or plain HTTP), with no client library in between
 * (exact status, headers and body, e.g. `Warning` headers or a Table). `body` objects are sent as JSON.
 */
export function rawRequest(
  url: string,
  ca: string | undefined,
  options: { method?: string; token?: string; headers?: Record<string, string | string[]>; body?: unknown; contentType?: string } = {},
): Promise<RawAnswer> {
  const headers: Record<string, string | string[]> = { ...options.headers };
  if (options.token !== undefined) headers['authorization'] = `Bearer ${options.token}`;
  const payload = options.body === undefined ? undefined : typeof options.body === 'string' ? options.body : JSON.stringify(options.body);
  if (payload !== undefined) {
    headers['content-type'] = options.contentType ?? 'application/json';
    headers['content-length'] = String(Buffer.byteLength(payload));
  }
  return new Promise((resolveRequest, reject) => {
    const send = url.startsWith('https:') ? httpsRequest : httpRequest;
    const req = send(url, { method: options.method ?? 'GET', ca, agent: false, headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => {
        let body: unknown = text;
        try {
          body = JSON.parse(text);
        } catch {
          // not JSON: keep the text
        }
        resolveRequest({ status: res.statusCode ?? 0, headers: res.headers, body });
      });
    });
    req.on('error', reject);
    req.end(payload);
  });
}

/** A pod body in the shape of the sandbox pods (Go §6), small enough for tests. */
export function sandboxPod(name: string, options: { labels?: Record<string, string>; tokenSecret?: string; probe?: boolean } = {}): Record<string, unknown> {
  const env: unknown[] = [{ name: 'HOME', value: '/workspace' }];
  if (options.tokenSecret) env.push({ name: 'SANDBOX_AUTH_TOKEN', valueFrom: { secretKeyRef: { name: options.tokenSecret, key: 'token' } } });
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, labels: options.labels ?? { 'cli-mcp.redhat.com/component': 'sandbox' } },
    spec: {
      terminationGracePeriodSeconds: 5,
      containers: [
        {
          name: 'sandbox',
          image: 'sandbox:test',
          env,
          volumeMounts: [{ name: 'workspace', mountPath: '/workspace' }],
          ...(options.probe === false
            ? {}
            : {
                readinessProbe: {
                  exec: { command: ['curl', '-fsS', '--max-time', '1', 'http://127.0.0.1:8090/health'] },
                  initialDelaySeconds: 2,
                  timeoutSeconds: 2,
                  periodSeconds: 10,
                },
              }),
        },
      ],
      volumes: [{ name: 'workspace', emptyDir: {} }],
    },
  };
}

// ---------------------------------------------------------------------------------------------- kubectl

/** Runs kubectl against a kubeconfig with a private discovery cache. Never throws on a non-zero exit. */
export class Kubectl {
  private constructor(
    private readonly binary: string,
    private readonly kubeconfig: string,
    private readonly cacheDir: string,
  ) {}

  static async create(binary: string, kubeconfig: string): Promise<Kubectl> {
    return new Kubectl(binary, kubeconfig, await mkdtemp(join(tmpdir(), 'kubectl-cache-')));
  }

  private args(args: string[]): string[] {
    return ['--kubeconfig', this.kubeconfig, '--cache-dir', this.cacheDir, '--request-timeout=20s', ...args];
  }

  /** Removes kubectl's discovery cache (C-TEST-1: nothing of a test file stays behind). */
  async remove(): Promise<void> {
    await rm(this.cacheDir, { recursive: true, force: true });
  }

  run(args: string[], input?: string): Promise<{ code: number; stdout: string; stderr: string }> {
    return new Promise((resolveRun) => {
      const child = execFile(this.binary, this.args(args), { timeout: 25_000, env: { ...process.env, HOME: this.cacheDir } }, (error, stdout, stderr) => {
        const code = error ? (typeof (error as { code?: unknown }).code === 'number' ? ((error as { code: number }).code) : 1) : 0;
        resolveRun({ code, stdout, stderr });
      });
      if (input !== undefined) child.stdin?.end(input);
    });
  }

  /** Starts a long-running kubectl (e.g. `get -w`) whose stdout lines are collected. */
  background(args: string[]): BackgroundKubectl {
    return new BackgroundKubectl(spawn(this.binary, this.args(args), { env: { ...process.env, HOME: this.cacheDir }, stdio: ['ignore', 'pipe', 'pipe'] }));
  }
}

/** A kubectl process in the background; `waitForLines` resolves on output, `stop` kills it. */
export class BackgroundKubectl {
  readonly lines: string[] = [];
  stderr = '';
  private waiters: { count: number; resolve: () => void }[] = [];
  private buffer = '';

  constructor(private readonly child: ChildProcess) {
    child.stdout?.setEncoding('utf8');
    child.stdout?.on('data', (chunk: string) => {
      this.buffer += chunk;
      const parts = this.buffer.split('\n');
      this.buffer = parts.pop() ?? '';
      this.lines.push(...parts.filter((l) => l.trim() !== ''));
      this.waiters = this.waiters.filter((w) => {
        if (this.lines.length < w.count) return true;
        w.resolve();
        return false;
      });
    });
    child.stderr?.setEncoding('utf8');
    child.stderr?.on('data', (chunk: string) => (this.stderr += chunk));
  }

  /** Resolves once at least `count` non-empty lines were printed; rejects after `timeoutMs`. */
  waitForLines(count: number, timeoutMs = 15_000): Promise<string[]> {
    if (this.lines.length >= count) return Promise.resolve(this.lines);
    return new Promise((resolveWait, reject) => {
      const timer = setTimeout(() => reject(new Error(`kubectl printed ${JSON.stringify(this.lines)} (stderr ${this.stderr}), wanted ${count} lines`)), timeoutMs);
      this.waiters.push({
        count,
        resolve: () => {
          clearTimeout(timer);
          resolveWait(this.lines);
        },
      });
    });
  }

  stop(): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return Promise.resolve();
    return new Promise((resolveStop) => {
      this.child.once('exit', () => resolveStop());
      this.child.kill('SIGTERM');
    });
  }
}

// ------------------------------------------------------------------------------------------- the agent

function healthOk(url: string): Promise<boolean> {
  return new Promise((resolveCheck) => {
    const req = get(url, { timeout: 500 }, (res) => {
      res.resume();
      resolveCheck(res.statusCode === 200);
    });
    req.on('error', () => resolveCheck(false));
    req.on('timeout', () => req.destroy());
  });
}

let agentCheck: Promise<{ agent?: AgentCommand; reason?: string }> | undefined;

/**
 * The real sandbox agent (`dist/sandbox-agent/main.js`) when it is built and answers `/health`;
 * otherwise a reason to skip. Checked once per test file.
 */
export function realAgent(): Promise<{ agent?: AgentCommand; reason?: string }> {
  agentCheck ??= (async () => {
    if (!builtAgentExists()) return { reason: `${AGENT_ENTRY} is not built (run \`npm run build\`)` };
    const agent = builtAgentCommand();
    const port = 20_000 + Math.floor(Math.random() * 20_000);
    const host = '127.0.0.1';
    // The agent writes "<port>\n" to SANDBOX_READY_FD once it listens: wait for that (or its exit), then probe once.
    const child = spawn(agent.command, agent.args, {
      cwd: repoRoot(),
      env: { PATH: process.env['PATH'] ?? '', SANDBOX_AGENT_HOST: host, SANDBOX_AGENT_PORT: String(port), SANDBOX_EXIT_WITH_PARENT: '1', SANDBOX_OUTPUT_DIR: 'off', SANDBOX_READY_FD: '3' },
      stdio: ['pipe', 'ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr?.on('data', (c: Buffer) => (stderr += c.toString()));
    try {
      await new Promise<void>((resolveReady) => {
        const timer = setTimeout(resolveReady, 10_000);
        const done = (): void => {
          clearTimeout(timer);
          resolveReady();
        };
        (child.stdio[3] as NodeJS.ReadableStream | null)?.once('data', done);
        child.once('exit', done);
      });
      if (await healthOk(`http://${host}:${port}/health`)) return { agent };
      return { reason: `${AGENT_ENTRY} does not answer GET /health (stderr: ${stderr.slice(0, 300)})` };
    } finally {
      // SIGTERM lets the agent take its shell down with it.
      child.kill('SIGTERM');
    }
  })();
  return agentCheck;
}
