import type { ProgressNotification } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { startProgress } from './progress-reporter.js';

describe(startProgress.name, () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('sends elapsed seconds every interval until stopped', async () => {
    const sent: ProgressNotification[] = [];
    const stop = startProgress('tok', 5000, async (notification) => {
      sent.push(notification);
    });
    await vi.advanceTimersByTimeAsync(15_000);
    stop();
    await vi.advanceTimersByTimeAsync(30_000);
    expect(sent).toEqual([5, 10, 15].map((seconds) => ({
      method: 'notifications/progress',
      params: { progressToken: 'tok', progress: seconds, message: `running for ${seconds} s` },
    })));
  });

  it('sends nothing without a progress token', async () => {
    const send = vi.fn(async () => undefined);
    const stop = startProgress(undefined, 1000, send);
    await vi.advanceTimersByTimeAsync(10_000);
    stop();
    expect(send).not.toHaveBeenCalled();
  });

  it('keeps numeric tokens and strictly increasing progress', async () => {
    const sent: ProgressNotification[] = [];
    const stop = startProgress(42, 100, async (notification) => {
      sent.push(notification);
    });
    await vi.advanceTimersByTimeAsync(1000);
    stop();
    const values = sent.map((notification) => notification.params.progress);
    expect(values).toEqual([0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1]);
    expect(sent.every((notification) => notification.params.progressToken === 42)).toBe(true);
  });

  it('quotes the last line of each stream when the output can be peeked, cleaned and clipped', async () => {
    const sent: string[] = [];
    const outputs = [
      { running: true, stdout: 'pulling layer 1\npulling layer 2\n\n', stderr: '\u001b[31mwarning: slow\u001b[0m\r\n' },
      { running: true, stdout: `${'x'.repeat(300)}\n`, stderr: '' },
      { running: false },
    ];
    const stop = startProgress('t', 1000, async (n) => void sent.push(n.params.message ?? ''), async () => outputs.shift());
    await vi.advanceTimersByTimeAsync(4000);
    stop();
    expect(sent).toEqual([
      'running for 1 s; stdout: pulling layer 2; stderr: warning: slow',
      `running for 2 s; stdout: ${'x'.repeat(159)}…`,
      'running for 3 s',
      'running for 4 s',
    ]);
  });

  it('still reports progress when a peek fails, and never stacks ticks behind a slow peek', async () => {
    const sent: string[] = [];
    let calls = 0;
    const peek = async () => {
      calls += 1;
      if (calls === 1) throw new Error('agent unreachable');
      await new Promise((resolve) => setTimeout(resolve, 2500));
      return { running: true, stdout: 'late', stderr: '' };
    };
    const stop = startProgress('t', 1000, async (n) => void sent.push(n.params.message ?? ''), peek);
    // Tick 1: the peek fails; tick 2: a 2.5 s peek, so ticks 3 and 4 are skipped; it answers at 4.5 s.
    await vi.advanceTimersByTimeAsync(4600);
    stop();
    await vi.advanceTimersByTimeAsync(5000);
    expect(sent).toEqual(['running for 1 s', 'running for 5 s; stdout: late']);
    expect(calls).toBe(2);
  });

  it('ignores send failures (the stream may be gone)', async () => {
    const send = vi.fn(async () => {
      throw new Error('stream closed');
    });
    const stop = startProgress('t', 1000, send);
    await vi.advanceTimersByTimeAsync(3000);
    stop();
    expect(send).toHaveBeenCalledTimes(3);
  });
});
