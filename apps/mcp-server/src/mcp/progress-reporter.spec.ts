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
