import type { ExecResponse } from '@cli-mcp/agent-client';
import { describe, expect, it, vi } from 'vitest';
import { cancelledBeforeStart } from '../shell/output/command-result.js';
import { ExecQueue, type QueuedJob } from './exec-queue.js';

/** A strict fake runner: each job stays running until the test finishes it; abort is observable. */
class FakeRunner {
  readonly started: Array<{ job: QueuedJob; signal: AbortSignal; finish(stdout?: string): void; respond(r: ExecResponse): void }> = [];

  readonly run = (job: QueuedJob, signal: AbortSignal, respond: (r: ExecResponse) => void): Promise<ExecResponse> =>
    new Promise((resolve) => {
      const finish = (stdout = job.command) => resolve({ ...cancelledBeforeStart(), stdout, stderr: '', exit_code: 0, cancelled: false });
      this.started.push({ job, signal, finish, respond });
      signal.addEventListener('abort', () => resolve(cancelledBeforeStart()));
    });
}

const job = (command: string): QueuedJob => ({ command, timeoutMs: 1000, tty: false });
const tick = () => new Promise((r) => setImmediate(r));

describe(ExecQueue.name, () => {
  it('runs one job at a time in arrival order', async () => {
    const runner = new FakeRunner();
    const queue = new ExecQueue(runner.run, cancelledBeforeStart);
    const tickets = ['a', 'b', 'c'].map((c) => queue.submit(job(c)));
    expect(runner.started.map((s) => s.job.command)).toEqual(['a']);
    expect(queue.busy).toBe(true);
    expect(queue.waiting).toBe(2);
    runner.started[0]!.finish();
    await tick();
    expect(runner.started.map((s) => s.job.command)).toEqual(['a', 'b']);
    runner.started[1]!.finish();
    await tick();
    runner.started[2]!.finish();
    expect((await Promise.all(tickets.map((t) => t.result))).map((r) => r.stdout)).toEqual(['a', 'b', 'c']);
    await queue.idle();
    expect(queue.busy).toBe(false);
  });

  it('tells whether a job runs, and whether it is the one with a given request id', async () => {
    const runner = new FakeRunner();
    const queue = new ExecQueue(runner.run, cancelledBeforeStart);
    expect(queue.isRunning()).toBe(false);
    queue.submit(job('a'), { requestId: 'r-a' });
    queue.submit(job('b'), { requestId: 'r-b' });
    expect([queue.isRunning(), queue.isRunning('r-a'), queue.isRunning('r-b')]).toEqual([true, true, false]);
    runner.started[0]!.finish();
    await tick();
    expect([queue.isRunning('r-a'), queue.isRunning('r-b')]).toEqual([false, true]);
  });

  it('joins a running idempotency key and returns a finished one without running it again', async () => {
    const runner = new FakeRunner();
    const queue = new ExecQueue(runner.run, cancelledBeforeStart);
    const first = queue.submit(job('x'), { idempotencyKey: 'k1' });
    const joined = queue.submit(job('x'), { idempotencyKey: 'k1' });
    runner.started[0]!.finish('once');
    expect((await first.result).stdout).toBe('once');
    expect((await joined.result).stdout).toBe('once');
    expect((await queue.submit(job('x'), { idempotencyKey: 'k1' }).result).stdout).toBe('once');
    expect(runner.started).toHaveLength(1);
  });

  it('never deduplicates on request_id: JSON-RPC ids restart with every MCP client', async () => {
    const runner = new FakeRunner();
    const queue = new ExecQueue(runner.run, cancelledBeforeStart);
    const first = queue.submit(job('first'), { requestId: 'mcp-1' });
    runner.started[0]!.finish('first');
    expect((await first.result).stdout).toBe('first');
    await tick();
    const second = queue.submit(job('second'), { requestId: 'mcp-1' });
    runner.started[1]!.finish('second');
    expect((await second.result).stdout).toBe('second');
    expect(runner.started).toHaveLength(2);
  });

  it('a request id two live jobs share names neither: no cancel, no peek reaches a namesake (C-MCP-9)', async () => {
    const runner = new FakeRunner();
    const queue = new ExecQueue(runner.run, cancelledBeforeStart);
    const running = queue.submit(job('a'), { requestId: 'mcp-7' });
    const queued = queue.submit(job('b'), { requestId: 'mcp-7' });
    expect(queue.isRunning('mcp-7')).toBe(false);
    // Not 'waiting' either: the id did arrive.
    expect(queue.cancel('mcp-7')).toBe('none');
    expect(runner.started[0]!.signal.aborted).toBe(false);
    runner.started[0]!.finish('a');
    expect((await running.result).stdout).toBe('a');
    await tick();
    // One namesake left: the id names it again.
    expect(queue.isRunning('mcp-7')).toBe(true);
    expect(queue.cancel('mcp-7')).toBe('cancelled');
    expect((await queued.result).cancelled).toBe(true);
  });

  it('forgets the oldest stored results beyond 32', async () => {
    const runner = new FakeRunner();
    const queue = new ExecQueue(runner.run, cancelledBeforeStart);
    for (let i = 0; i < 33; i++) {
      const t = queue.submit(job(`c${i}`), { idempotencyKey: `id${i}` });
      runner.started[i]!.finish();
      await t.result;
      await tick();
    }
    void queue.submit(job('again'), { idempotencyKey: 'id0' });
    expect(runner.started).toHaveLength(34);
    void queue.submit(job('again'), { idempotencyKey: 'id32' });
    expect(runner.started).toHaveLength(34);
  });

  it('drops a queued job whose only caller went away, and cancels a running one', async () => {
    const runner = new FakeRunner();
    const queue = new ExecQueue(runner.run, cancelledBeforeStart);
    const running = queue.submit(job('run'));
    const queued = queue.submit(job('queued'));
    queued.release();
    expect((await queued.result).cancelled).toBe(true);
    expect(queue.waiting).toBe(0);
    running.release();
    expect(runner.started[0]!.signal.aborted).toBe(true);
    expect((await running.result).cancelled).toBe(true);
    expect(runner.started).toHaveLength(1);
  });

  it('keeps a job running while another caller still waits for it', () => {
    const runner = new FakeRunner();
    const queue = new ExecQueue(runner.run, cancelledBeforeStart);
    const a = queue.submit(job('x'), { idempotencyKey: 'shared' });
    queue.submit(job('x'), { idempotencyKey: 'shared' });
    a.release();
    expect(runner.started[0]!.signal.aborted).toBe(false);
  });

  it('cancel targets a request_id (queued or running) or, without one, the running job', async () => {
    const runner = new FakeRunner();
    const queue = new ExecQueue(runner.run, cancelledBeforeStart);
    const a = queue.submit(job('a'), { requestId: 'a' });
    const b = queue.submit(job('b'), { requestId: 'b', idempotencyKey: 'kb' });
    expect(queue.cancel('b')).toBe('cancelled');
    expect((await b.result).cancelled).toBe(true);
    expect(queue.cancel('b')).toBe('none');
    expect(queue.cancel()).toBe('cancelled');
    expect((await a.result).cancelled).toBe(true);
    await queue.idle();
    expect(queue.cancel()).toBe('none');
    // A job cancelled on purpose is remembered for its idempotency key; a retry does not run it.
    expect((await queue.submit(job('b'), { idempotencyKey: 'kb' }).result).cancelled).toBe(true);
    expect(runner.started).toHaveLength(1);
  });

  it('cancelAll empties the queue and stops the running job', async () => {
    const runner = new FakeRunner();
    const queue = new ExecQueue(runner.run, cancelledBeforeStart);
    const tickets = [queue.submit(job('a')), queue.submit(job('b'))];
    queue.cancelAll();
    const results = await Promise.all(tickets.map((t) => t.result));
    expect(results.every((r) => r.cancelled)).toBe(true);
    await queue.idle();
  });

  it('propagates a runner failure to the caller and keeps serving', async () => {
    let fail = true;
    const queue = new ExecQueue(async () => {
      if (fail) throw new Error('cannot start shell');
      return { ...cancelledBeforeStart(), cancelled: false, stdout: 'ok' };
    }, cancelledBeforeStart);
    await expect(queue.submit(job('a'), { idempotencyKey: 'f' }).result).rejects.toThrow('cannot start shell');
    fail = false;
    expect((await queue.submit(job('a'), { idempotencyKey: 'f' }).result).stdout).toBe('ok');
  });

  describe('a cancel that comes before its job (C-MCP-9, cross-replica)', () => {
    it('waits for the id: the job is answered as cancelled without running, once, and remembered for its key', async () => {
      const runner = new FakeRunner();
      const queue = new ExecQueue(runner.run, cancelledBeforeStart);
      expect(queue.cancel('early')).toBe('waiting');
      const refused = queue.submit(job('never'), { requestId: 'early', idempotencyKey: 'k-early' });
      expect(await refused.result).toMatchObject({ cancelled: true });
      expect(runner.started).toHaveLength(0);
      expect(queue.busy).toBe(false);
      // A retry of the same call gets the same answer; a new call of that id runs.
      expect((await queue.submit(job('never'), { requestId: 'early', idempotencyKey: 'k-early' }).result).cancelled).toBe(true);
      void queue.submit(job('later'), { requestId: 'early' });
      expect(runner.started.map((s) => s.job.command)).toEqual(['later']);
    });

    it('never waits for an id whose job already came: finished, yielded or sharing it', async () => {
      const runner = new FakeRunner();
      const queue = new ExecQueue(runner.run, cancelledBeforeStart);
      const done = queue.submit(job('done'), { requestId: 'd' });
      runner.started[0]!.finish();
      await done.result;
      await tick();
      expect(queue.cancel('d')).toBe('none');
      void queue.submit(job('again'), { requestId: 'd' });
      expect(runner.started.map((s) => s.job.command)).toEqual(['done', 'again']);
    });

    it('a cancel without a request id never waits (it means "whatever runs")', () => {
      const runner = new FakeRunner();
      const queue = new ExecQueue(runner.run, cancelledBeforeStart);
      expect(queue.cancel()).toBe('none');
      void queue.submit(job('runs'));
      expect(runner.started).toHaveLength(1);
    });
  });

  describe('yield points (C-MCP-11)', () => {
    const running = (stdout: string): ExecResponse => ({ ...cancelledBeforeStart(), stdout, exit_code: -1, cancelled: false, running: true });

    it('answers the callers early while the job keeps the queue; cancels and disconnects no longer reach it', async () => {
      const runner = new FakeRunner();
      const queue = new ExecQueue(runner.run, cancelledBeforeStart);
      const first = queue.submit(job('long'), { requestId: 'r1' });
      const second = queue.submit(job('next'));
      runner.started[0]!.respond(running('so far'));
      expect((await first.result).stdout).toBe('so far');
      first.release();
      expect(queue.cancel('r1')).toBe('none');
      expect(runner.started[0]!.signal.aborted).toBe(false);
      expect(runner.started).toHaveLength(1);
      runner.started[0]!.finish();
      await tick();
      expect(runner.started.map((s) => s.job.command)).toEqual(['long', 'next']);
      runner.started[1]!.finish();
      expect((await second.result).stdout).toBe('next');
    });

    it('drops a job still queued at its yield point with the answer for that case; it never runs', async () => {
      vi.useFakeTimers();
      try {
        const runner = new FakeRunner();
        const queue = new ExecQueue(runner.run, cancelledBeforeStart, (queued) => running(`queued:${queued.command}`));
        queue.submit(job('long'));
        const waiting = queue.submit({ ...job('waits'), yieldAt: Date.now() + 2000 });
        const later = queue.submit(job('later'));
        await vi.advanceTimersByTimeAsync(2000);
        expect((await waiting.result).stdout).toBe('queued:waits');
        expect(queue.waiting).toBe(1);
        runner.started[0]!.finish();
        await vi.advanceTimersByTimeAsync(0);
        expect(runner.started.map((s) => s.job.command)).toEqual(['long', 'later']);
        runner.started[1]!.finish();
        await later.result;
      } finally {
        vi.useRealTimers();
      }
    });

    it('does not drop a job that started before its yield point', async () => {
      vi.useFakeTimers();
      try {
        const runner = new FakeRunner();
        const queue = new ExecQueue(runner.run, cancelledBeforeStart, () => running('dropped'));
        const ticket = queue.submit({ ...job('runs'), yieldAt: Date.now() + 1000 });
        await vi.advanceTimersByTimeAsync(1000);
        runner.started[0]!.finish();
        expect((await ticket.result).stdout).toBe('runs');
      } finally {
        vi.useRealTimers();
      }
    });
  });
});
