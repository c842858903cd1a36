import type { ExecResponse } from '@cli-mcp/agent-client';
import { EarlyCancels } from './early-cancels.js';

export interface QueuedJob {
  command: string;
  timeoutMs: number;
  tty: boolean;
  /** Epoch ms of the yield point (C-MCP-11), counted from submission; undefined = never. */
  yieldAt?: number;
}

/**
 * Runs one job. `respond` answers the callers early (a command that keeps the shell past its yield point,
 * C-MCP-11): the queue stays busy until the returned promise settles, but the callers have their answer.
 */
export type JobRunner = (job: QueuedJob, signal: AbortSignal, respond: (response: ExecResponse) => void) => Promise<ExecResponse>;

/** One caller's claim on an execution; `release` = the caller went away (client disconnect, C-AG-4). */
export interface ExecTicket {
  result: Promise<ExecResponse>;
  release(): void;
}

/** How a caller names a job: `requestId` is the cancel target, `idempotencyKey` deduplicates retries. */
export interface JobKeys {
  requestId?: string;
  idempotencyKey?: string;
}

interface Entry {
  job: QueuedJob;
  requestId: string | undefined;
  idempotencyKey: string | undefined;
  controller: AbortController;
  waiters: number;
  state: 'queued' | 'running' | 'done';
  /** The callers were answered before the job ended (C-MCP-11): cancels and disconnects no longer reach it. */
  responded: boolean;
  yieldTimer: NodeJS.Timeout | undefined;
  result: Promise<ExecResponse>;
  resolve(response: ExecResponse): void;
  reject(error: unknown): void;
}

const REMEMBERED_RESULTS = 32;

/** What `/cancel` did: stopped or dropped a command, made the cancel wait for its command (early-cancels.ts), or nothing. */
export type CancelOutcome = 'cancelled' | 'waiting' | 'none';

/**
 * One command at a time, in arrival order (C-AG-9). Each job's timeout is measured by the runner from the moment it
 * starts. `request_id` only names a job for `/cancel` (JSON-RPC ids restart with every MCP client, so they must
 * never deduplicate); `idempotency_key` makes `/exec` retry-safe: a running or queued key is joined, a finished
 * one (of the last 32) returns its stored result without running again. When every caller of a job has gone away,
 * a queued job is dropped and a running one cancelled (C-AG-4). A cancel that names a job not yet arrived waits a
 * few seconds for it (EarlyCancels, C-MCP-9).
 */
export class ExecQueue {
  private readonly pending: Entry[] = [];
  private current: Entry | undefined;
  /**
   * Queued or running jobs by request id (cancel and peek targets). An id several live jobs share names none of
   * them: a cancel or a peek must reach only the call it names (C-MCP-9), never a namesake of another client's.
   */
  private readonly byRequestId = new Map<string, Set<Entry>>();
  /** Queued or running jobs by idempotency key (joined by retries). */
  private readonly byKey = new Map<string, Entry>();
  /** Results of the last finished jobs by idempotency key. */
  private readonly finished = new Map<string, ExecResponse>();
  private idleWaiters: Array<() => void> = [];

  constructor(
    private readonly runner: JobRunner,
    private readonly cancelledResult: () => ExecResponse,
    /** Answer for a job still queued at its yield point (it is dropped: it never runs). */
    private readonly queuedAtYield: (job: QueuedJob) => ExecResponse = cancelledResult,
    private readonly early = new EarlyCancels(),
  ) {}

  get busy(): boolean {
    return this.current !== undefined;
  }

  /** Jobs waiting behind the running one. */
  get waiting(): number {
    return this.pending.length;
  }

  submit(job: QueuedJob, keys: JobKeys = {}): ExecTicket {
    const { requestId, idempotencyKey } = keys;
    if (idempotencyKey !== undefined) {
      const stored = this.finished.get(idempotencyKey);
      if (stored) return { result: Promise.resolve(stored), release: () => undefined };
      const joined = this.byKey.get(idempotencyKey);
      if (joined) return this.ticketFor(joined);
    }
    let resolve!: (response: ExecResponse) => void;
    let reject!: (error: unknown) => void;
    const result = new Promise<ExecResponse>((res, rej) => {
      resolve = res;
      reject = rej;
    });
    const entry: Entry = {
      job, requestId, idempotencyKey, controller: new AbortController(), waiters: 0, state: 'queued', responded: false,
      yieldTimer: undefined, result, resolve, reject,
    };
    if (job.yieldAt !== undefined) {
      entry.yieldTimer = setTimeout(() => {
        if (entry.state === 'queued') this.dropAtYield(entry);
      }, Math.max(0, job.yieldAt - Date.now()));
    }
    if (requestId !== undefined) this.byRequestId.set(requestId, (this.byRequestId.get(requestId) ?? new Set()).add(entry));
    if (idempotencyKey !== undefined) this.byKey.set(idempotencyKey, entry);
    this.pending.push(entry);
    const ticket = this.ticketFor(entry);
    // Its cancel came first (another replica forwarded it while this request was in flight): it never runs.
    if (requestId !== undefined && this.early.arrive(requestId)) this.dropQueued(entry, true);
    else this.pump();
    return ticket;
  }

  /** Whether a job runs and, when `requestId` is given, is the one live job with that id (`/output`). */
  isRunning(requestId?: string): boolean {
    return this.current !== undefined && (requestId === undefined || this.onlyJobWith(requestId) === this.current);
  }

  /**
   * `/cancel`: the one live job with this id (queued or running), else the running job — unless its callers were
   * answered. An id no job has had yet waits for its job.
   */
  cancel(requestId?: string): CancelOutcome {
    const entry = requestId === undefined ? this.current : this.onlyJobWith(requestId);
    if (!entry) return requestId !== undefined && !this.byRequestId.has(requestId) && this.early.wait(requestId) ? 'waiting' : 'none';
    if (entry.state === 'done' || entry.responded) return 'none';
    if (entry.state === 'queued') this.dropQueued(entry, true);
    else entry.controller.abort();
    return 'cancelled';
  }

  /** Shutdown: cancel the running job and everything queued. */
  cancelAll(): void {
    for (const entry of [...this.pending]) this.dropQueued(entry, false);
    this.current?.controller.abort();
  }

  /** Resolves when nothing runs and nothing waits. */
  idle(): Promise<void> {
    if (!this.current && this.pending.length === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  private onlyJobWith(requestId: string): Entry | undefined {
    const entries = this.byRequestId.get(requestId);
    return entries?.size === 1 ? entries.values().next().value : undefined;
  }

  private ticketFor(entry: Entry): ExecTicket {
    entry.waiters++;
    let released = false;
    return {
      result: entry.result,
      release: () => {
        if (released || entry.state === 'done' || entry.responded) return;
        released = true;
        entry.waiters--;
        if (entry.waiters > 0) return;
        if (entry.state === 'queued') this.dropQueued(entry, false);
        else entry.controller.abort();
      },
    };
  }

  /** A queued job whose callers reached their yield point first: answered with the running job's progress. */
  private dropAtYield(entry: Entry): void {
    const at = this.pending.indexOf(entry);
    if (at >= 0) this.pending.splice(at, 1);
    this.settle(entry, this.queuedAtYield(entry.job), false);
    this.notifyIdle();
  }

  /** A queued job that will never run. Remembered for its key only when cancelled on purpose (`/cancel`). */
  private dropQueued(entry: Entry, remember: boolean): void {
    const at = this.pending.indexOf(entry);
    if (at >= 0) this.pending.splice(at, 1);
    const response = this.cancelledResult();
    this.settle(entry, response, remember);
    this.notifyIdle();
  }

  private pump(): void {
    if (this.current) return;
    const entry = this.pending.shift();
    if (!entry) {
      this.notifyIdle();
      return;
    }
    this.current = entry;
    entry.state = 'running';
    const respond = (response: ExecResponse): void => {
      if (entry.responded || entry.state === 'done') return;
      entry.responded = true;
      // A cancel naming this call must not reach the command any more (C-MCP-11: only `kill` or DELETE stop it).
      this.forgetRequestId(entry);
      entry.resolve(response);
    };
    this.runner(entry.job, entry.controller.signal, respond).then(
      (response) => this.settle(entry, response, true),
      (error: unknown) => {
        this.forget(entry);
        entry.reject(error);
      },
    ).finally(() => {
      this.current = undefined;
      this.pump();
    });
  }

  private settle(entry: Entry, response: ExecResponse, remember: boolean): void {
    this.forget(entry);
    if (remember && entry.idempotencyKey !== undefined) {
      this.finished.set(entry.idempotencyKey, response);
      while (this.finished.size > REMEMBERED_RESULTS) this.finished.delete(this.finished.keys().next().value!);
    }
    entry.resolve(response);
  }

  private forget(entry: Entry): void {
    entry.state = 'done';
    clearTimeout(entry.yieldTimer);
    this.forgetRequestId(entry);
    if (entry.idempotencyKey !== undefined && this.byKey.get(entry.idempotencyKey) === entry) this.byKey.delete(entry.idempotencyKey);
  }

  private forgetRequestId(entry: Entry): void {
    const namesakes = entry.requestId === undefined ? undefined : this.byRequestId.get(entry.requestId);
    if (namesakes?.delete(entry) && namesakes.size === 0) this.byRequestId.delete(entry.requestId!);
  }

  private notifyIdle(): void {
    if (this.current || this.pending.length > 0) return;
    const waiters = this.idleWaiters;
    this.idleWaiters = [];
    for (const wake of waiters) wake();
  }
}
