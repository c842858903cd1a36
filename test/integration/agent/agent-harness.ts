/**
 * Fixtures for the sandbox-agent integration tests: start the BUILT agent (dist/, as CI builds before testing) with
 * a temp workdir on an ephemeral port (learned through SANDBOX_READY_FD), talk HTTP to it, read its JSON logs,
 * and clean everything up. No sleeps: waits are on events or on polled conditions with a bound.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { Agent, request, type ClientRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ExecRequest, ExecResponse } from '@cli-mcp/agent-client';

export const AGENT_MAIN = fileURLToPath(new URL('../../../dist/sandbox-agent/main.js', import.meta.url));
export const AGENT_BIN = fileURLToPath(new URL('../../../bin/sandbox-agent.cjs', import.meta.url));
export const TOKEN = 'test-token-0123456789abcdef';

export interface HttpResult {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  json: any;
}

export interface StartOptions {
  /** Extra env for the agent. `SANDBOX_AUTH_TOKEN` defaults to TOKEN; pass `token: null` for an unassigned agent. */
  env?: Record<string, string>;
  token?: string | null;
  /** What follows `node` on the command line (default: the bundle itself, as the local backend starts it). */
  argv?: string[];
  /** Run the agent as this user (a root runner's stand-in for an unprivileged one); its workdir is given to it. */
  runAs?: { uid: number; gid: number };
}

const running = new Set<TestAgent>();

/** Environment of the test runner without any SANDBOX_* variable, so a developer's shell cannot leak in. */
function baseEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !k.startsWith('SANDBOX_')) env[k] = v;
  return env;
}

export function assertBuilt(): void {
  if (!existsSync(AGENT_MAIN)) throw new Error(`sandbox-agent is not built (${AGENT_MAIN}): run npm run build first`);
}

export class TestAgent {
  readonly logs: any[] = [];
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  private readonly http = new Agent({ keepAlive: true });
  private logWaiters: Array<() => void> = [];
  port = 0;

  constructor(readonly child: ChildProcess, readonly workdir: string) {
    this.exited = new Promise((res) => child.once('exit', (code, signal) => res({ code, signal })));
    let pending = '';
    child.stderr!.on('data', (chunk: Buffer) => {
      pending += chunk.toString();
      let nl = pending.indexOf('\n');
      while (nl >= 0) {
        const line = pending.slice(0, nl);
        pending = pending.slice(nl + 1);
        try {
          this.logs.push(JSON.parse(line));
        } catch {
          this.logs.push({ raw: line });
        }
        nl = pending.indexOf('\n');
      }
      for (const wake of this.logWaiters.splice(0)) wake();
    });
  }

  get pid(): number {
    return this.child.pid!;
  }

  get outputDir(): string {
    return join(this.workdir, '.cli-mcp');
  }

  /** Resolves with the first log record matching `predicate` at or after `fromIndex` (already logged or future). */
  async waitForLog(predicate: (record: any) => boolean, timeoutMs = 10_000, fromIndex = 0): Promise<any> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.logs.slice(fromIndex).find(predicate);
      if (found) return found;
      if (Date.now() > deadline) throw new Error('log record not seen in time');
      await new Promise<void>((res) => {
        const timer = setTimeout(res, Math.max(0, deadline - Date.now()));
        this.logWaiters.push(() => {
          clearTimeout(timer);
          res();
        });
      });
    }
  }

  /** Sends a request; the returned `req` lets a test drop the connection (client disconnect). */
  send(method: string, path: string, options: { body?: string | Buffer; headers?: Record<string, string> } = {}): {
    req: ClientRequest;
    response: Promise<HttpResult>;
  } {
    let req!: ClientRequest;
    const response = new Promise<HttpResult>((res, rej) => {
      req = request({ host: '127.0.0.1', port: this.port, method, path, agent: this.http, headers: options.headers }, (r) => {
        const chunks: Buffer[] = [];
        r.on('data', (c: Buffer) => chunks.push(c));
        r.on('end', () => {
          const text = Buffer.concat(chunks).toString();
          let json: unknown;
          try {
            json = text === '' ? undefined : JSON.parse(text);
          } catch {
            json = undefined;
          }
          res({ status: r.statusCode!, headers: r.headers, text, json });
        });
        r.on('error', rej);
      });
      req.on('error', rej);
      req.end(options.body);
    });
    return { req, response };
  }

  call(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<HttpResult> {
    const raw = body === undefined ? undefined : typeof body === 'string' || Buffer.isBuffer(body) ? body : JSON.stringify(body);
    return this.send(method, path, { body: raw, headers: { 'content-type': 'application/json', ...headers } }).response;
  }

  /** `POST /exec` with the bearer token; asserts 200 and returns the ExecResponse. */
  async exec(command: string, extra: Omit<ExecRequest, 'command'> = {}): Promise<ExecResponse> {
    const r = await this.execRaw({ command, ...extra });
    if (r.status !== 200) throw new Error(`exec returned ${r.status}: ${r.text}`);
    return r.json as ExecResponse;
  }

  execRaw(body: unknown, token: string = TOKEN): Promise<HttpResult> {
    return this.call('POST', '/exec', body, { authorization: `Bearer ${token}` });
  }

  /** Stops the agent: one SIGTERM is graceful; `hard` sends a second one at once (immediate exit). */
  async stop(hard = true): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
    if (this.child.exitCode === null && this.child.signalCode === null) {
      const mark = this.logs.length;
      this.child.kill('SIGTERM');
      if (hard) {
        // Two signals sent back to back coalesce: send the second once the first was handled.
        await Promise.race([this.waitForLog((l) => l.msg === 'shutting down', 10_000, mark).catch(() => undefined), this.exited]);
        if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill('SIGTERM');
      }
    }
    const exit = await this.exited;
    this.http.destroy();
    running.delete(this);
    rmSync(this.workdir, { recursive: true, force: true });
    return exit;
  }
}

/** Starts the built agent and resolves once it listens. */
export async function startAgent(options: StartOptions = {}): Promise<TestAgent> {
  assertBuilt();
  const workdir = mkdtempSync(join(tmpdir(), 'agent-it-'));
  if (options.runAs) chownSync(workdir, options.runAs.uid, options.runAs.gid);
  const env: Record<string, string> = {
    ...baseEnv(),
    SANDBOX_AGENT_PORT: '0',
    SANDBOX_AGENT_HOST: '127.0.0.1',
    SANDBOX_WORKDIR: workdir,
    SANDBOX_READY_FD: '3',
    SANDBOX_LOG_LEVEL: 'debug',
    ...(options.token === null ? {} : { SANDBOX_AUTH_TOKEN: options.token ?? TOKEN }),
    ...options.env,
  };
  const child = spawn(process.execPath, options.argv ?? [AGENT_MAIN], { env, stdio: ['ignore', 'ignore', 'pipe', 'pipe'], ...options.runAs });
  const agent = new TestAgent(child, workdir);
  running.add(agent);
  const port = await new Promise<number>((res, rej) => {
    let text = '';
    child.stdio[3]!.on('data', (chunk: Buffer) => {
      text += chunk.toString();
      if (text.includes('\n')) res(Number(text.trim()));
    });
    child.once('exit', (code) => rej(new Error(`agent exited with ${code} before listening: ${JSON.stringify(agent.logs)}`)));
  });
  agent.port = port;
  return agent;
}

export async function stopAllAgents(): Promise<void> {
  await Promise.all([...running].map((a) => a.stop(true)));
}

/** Polls `check` until it returns a truthy value or the bound passes. For conditions without an event. */
export async function waitFor<T>(check: () => T | Promise<T>, timeoutMs = 10_000, what = 'condition'): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`${what} not reached within ${timeoutMs} ms`);
    await new Promise((res) => setTimeout(res, 20));
  }
}

export function rssKiB(pid: number, field: 'VmRSS' | 'VmHWM' = 'VmRSS'): number {
  const status = readFileSync(`/proc/${pid}/status`, 'latin1');
  return Number(new RegExp(`^${field}:\\s+(\\d+)`, 'm').exec(status)![1]);
}
