import { HealthIndicatorService } from '@nestjs/terminus';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { StrictSessionService } from '../../test/fakes.js';
import { HEALTH_TIMEOUT_MS, SessionsHealthIndicator } from './sessions-health.indicator.js';

describe(SessionsHealthIndicator.name, () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('is down with a timeout reason after 5 s, and aborts the check', async () => {
    let seen: AbortSignal | undefined;
    const sessions = new StrictSessionService().onCheckHealth((signal) => {
      seen = signal;
      return new Promise(() => undefined); // a backend that ignores its signal
    });
    const sut = new SessionsHealthIndicator(new HealthIndicatorService(), sessions);
    const result = sut.check('sessions');
    await vi.advanceTimersByTimeAsync(HEALTH_TIMEOUT_MS);
    await expect(result).resolves.toEqual({ sessions: { status: 'down', message: 'health check timed out after 5 s' } });
    expect(seen?.aborted).toBe(true);
  });

  it('is up when the backend answers in time', async () => {
    const sessions = new StrictSessionService().onCheckHealth(async () => undefined);
    const sut = new SessionsHealthIndicator(new HealthIndicatorService(), sessions);
    await expect(sut.check('sessions')).resolves.toEqual({ sessions: { status: 'up' } });
  });

  it('shows the details the backend reports, such as an isolation warning (C-SEC-4)', async () => {
    const details = { isolation: 'none', network: 'host', warnings: ['local sandboxes run WITHOUT isolation'] };
    const sessions = new StrictSessionService().onCheckHealth(async () => ({ details }));
    const sut = new SessionsHealthIndicator(new HealthIndicatorService(), sessions);
    await expect(sut.check('sessions')).resolves.toEqual({ sessions: { status: 'up', ...details } });
  });
});
