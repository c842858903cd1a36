/** A LocalBackend over the strict fakes of its ports, and the harness its specs share. */
import { afterEach, expect } from 'vitest';
import { LocalBackend } from '../src/local/local-backend.js';
import type { LocalBackendOptions } from '../src/local/local-backend.options.js';
import { FakeClock, StrictLocalAgent } from './fakes.js';
import { splitLocalOptions } from './split-local-options.js';
import { FakeAttacher, FakeHostFs, FakeLauncher, FakeRunner, FakeSocketEndpoints, FakeWorkspaces } from './local-fakes.js';

export const key = Buffer.from('k'.repeat(32));
export const never = (): AbortSignal => new AbortController().signal;

export function setup(overrides: Partial<LocalBackendOptions> = {}) {
  const clock = new FakeClock();
  const launcher = new FakeLauncher();
  const agent = new StrictLocalAgent().on('health', async () => ({ status: 'ok', assigned: true, busy: false }));
  const workspaces = new FakeWorkspaces();
  const hostFs = new FakeHostFs();
  const runner = overrides.commandRunner ?? new FakeRunner();
  const warnings: string[] = [];
  const attacher = new FakeAttacher();
  const backend = new LocalBackend(...splitLocalOptions({
    stateDir: '/state', hmacKey: key, agentEntry: '/repo/dist/apps/sandbox-agent/src/main.js', nodePath: '/usr/bin/node',
    isolation: 'none', sandboxUser: 'server', hostEnv: { LANG: 'C.UTF-8', SECRET: 'x' }, idleTimeoutMs: 60_000, stopGraceMs: 5_000,
    clock, launcher, agent, workspaces, hostFs, commandRunner: runner, networkAttacher: attacher, endpoints: new FakeSocketEndpoints(),
    logger: { info: () => undefined, warn: (message) => warnings.push(message) },
    // Bounds are their own spec's (local-backend.bounds.spec.ts); the others see a plain launch.
    maxProcesses: 'off', maxMemoryBytes: 'off', maxDiskBytes: 'off', maxOutputBytes: 'off',
    ...overrides,
  }));
  return { backend, clock, launcher, agent, workspaces, hostFs, runner, warnings, attacher };
}

/** `make` for one test; after it, the backend is shut down and nothing unexpected may have happened. */
export function useLocalBackend(): (overrides?: Partial<LocalBackendOptions>) => ReturnType<typeof setup> {
  let current: ReturnType<typeof setup> | undefined;
  afterEach(async () => {
    if (current) {
      await current.backend.shutdown();
      expect(current.agent.unexpected).toEqual([]);
      expect(current.launcher.alive()).toEqual([]);
    }
    current = undefined;
  });
  return (overrides = {}) => (current = setup(overrides));
}
