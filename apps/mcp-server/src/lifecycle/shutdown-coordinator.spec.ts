import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { memoryLogger } from '../../test/fakes.js';
import { RunningCalls } from '../mcp/running-calls.js';
import { ABORT_SETTLE_MS, ShutdownCoordinator } from './shutdown-coordinator.js';

describe(ShutdownCoordinator.name, () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  const setup = () => {
    const running = new RunningCalls();
    return { running, sut: new ShutdownCoordinator(running, memoryLogger().logger) };
  };

  it('returns at once when nothing runs, and marks the server draining', async () => {
    const { sut } = setup();
    expect(sut.draining).toBe(false);
    await expect(sut.drain(310_000)).resolves.toEqual({ cancelled: 0 });
    expect(sut.draining).toBe(true);
  });

  it('lets running calls finish within the grace without cancelling them', async () => {
    const { sut, running } = setup();
    const call = running.register('s', 'mcp-1');
    const drained = sut.drain(310_000);
    await vi.advanceTimersByTimeAsync(100_000);
    call.release();
    await expect(drained).resolves.toEqual({ cancelled: 0 });
    expect(call.signal.aborted).toBe(false);
  });

  it('cancels what still runs when the grace is over, then waits for the cancelled calls to answer', async () => {
    const { sut, running } = setup();
    const call = running.register('s', 'mcp-1');
    call.signal.addEventListener('abort', () => setTimeout(() => call.release(), 100));
    const drained = sut.drain(1000);
    await vi.advanceTimersByTimeAsync(1000);
    expect(call.signal.aborted).toBe(true);
    await vi.advanceTimersByTimeAsync(100);
    await expect(drained).resolves.toEqual({ cancelled: 1 });
  });

  it('does not wait forever for a call that ignores its cancel', async () => {
    const { sut, running } = setup();
    running.register('s', 'mcp-1');
    const drained = sut.drain(1000);
    await vi.advanceTimersByTimeAsync(1000 + ABORT_SETTLE_MS);
    await expect(drained).resolves.toEqual({ cancelled: 1 });
  });

  it('cancels at once on request (second signal)', () => {
    const { sut, running } = setup();
    const call = running.register('s', 'mcp-1');
    sut.cancelNow();
    expect(call.signal.aborted).toBe(true);
  });
});
