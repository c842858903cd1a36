import { Registry } from 'prom-client';
import { afterEach, beforeEach, expect } from 'vitest';
import type { SandboxHandle } from '../src/sandbox-backend.port.js';
import { SessionManager } from '../src/session-manager.js';
import { SessionMetrics } from '../src/session-metrics.js';
import { FakeClock, StrictAgent, StrictBackend } from './fakes.js';

/** A SessionManager over strict fakes, rebuilt before each test; fails the test on any unexpected fake call. */
export interface ManagerFixture {
  backend: StrictBackend;
  agent: StrictAgent;
  clock: FakeClock;
  registry: Registry;
  manager: SessionManager;
  /** The backend's acquire returns these handles in turn, then the last one again. */
  acquireReturns(...handles: SandboxHandle[]): void;
}

export function useManagerFixture(): ManagerFixture {
  const f = {
    acquireReturns(...handles: SandboxHandle[]) {
      let i = 0;
      f.backend.on('acquire', async () => handles[Math.min(i++, handles.length - 1)]!);
    },
  } as ManagerFixture;
  beforeEach(() => {
    f.backend = new StrictBackend();
    f.agent = new StrictAgent();
    f.clock = new FakeClock();
    f.registry = new Registry();
    f.manager = new SessionManager({ backend: f.backend, agent: f.agent, clock: f.clock, metrics: new SessionMetrics(f.registry), cacheTtlMs: 30_000 });
    f.backend.on('touch', () => undefined).on('beginCommand', () => () => undefined).on('stopReason', () => undefined);
  });
  afterEach(() => {
    expect(f.backend.unexpected).toEqual([]);
    expect(f.agent.unexpected).toEqual([]);
  });
  return f;
}
