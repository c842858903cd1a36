import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AgentClient } from '@cli-mcp/agent-client';
import { splitLocalOptions } from '../../../../libs/session/test/split-local-options.js';
import { LocalBackend, SessionManager, SessionMetrics, type LocalBackendOptions, type SessionEndReason } from '@cli-mcp/session';
import { Registry } from 'prom-client';
import { AGENT_ENTRY } from './environment.js';

export const HMAC_KEY = Buffer.from('integration-test-hmac-key-0123456789');

/** A real LocalBackend + SessionManager + AgentClient over the built agent, in a private state dir. */
export interface SessionStack {
  stateDir: string;
  backend: LocalBackend;
  manager: SessionManager;
  registry: Registry;
  /** Resolves when the backend reports the session's agent ended for `reason`. */
  ended(sessionId: string, reason: SessionEndReason): Promise<void>;
  run(sessionId: string, command: string): ReturnType<SessionManager['execute']>;
  close(): Promise<void>;
}

export async function createSessionStack(isolation: 'none' | 'bwrap', options: Partial<LocalBackendOptions> = {}): Promise<SessionStack> {
  // Not under /tmp: bwrap gives each sandbox a fresh /tmp, which would hide the state dir for the wrong reason.
  const base = existsSync('/var/tmp') ? '/var/tmp' : tmpdir();
  const stateDir = options.stateDir ?? (await mkdtemp(join(base, 'cli-mcp-session-it-')));
  const registry = new Registry();
  const metrics = new SessionMetrics(registry);
  const waiters = new Map<string, Array<() => void>>();
  const seen = new Set<string>();
  const backend = new LocalBackend(...splitLocalOptions({
    stateDir, hmacKey: HMAC_KEY, agentEntry: AGENT_ENTRY, isolation, stopGraceMs: 3_000, readyTimeoutMs: 25_000, metrics,
    ...options,
    onSessionEnded: (sessionId, reason) => {
      const key = `${sessionId}/${reason}`;
      seen.add(key);
      for (const wake of waiters.get(key) ?? []) wake();
      waiters.delete(key);
    },
  }));
  const agent = new AgentClient();
  const manager = new SessionManager({ backend, agent, metrics });
  return {
    stateDir, backend, manager, registry,
    ended(sessionId, reason) {
      const key = `${sessionId}/${reason}`;
      if (seen.has(key)) {
        seen.delete(key);
        return Promise.resolve();
      }
      return new Promise<void>((resolve) => waiters.set(key, [...(waiters.get(key) ?? []), () => (seen.delete(key), resolve())]));
    },
    run: (sessionId, command) => manager.execute(sessionId, { command, timeout: 20 }, new AbortController().signal),
    async close() {
      await manager.shutdown();
      agent.close();
      if (!options.stateDir) await rm(stateDir, { recursive: true, force: true });
    },
  };
}
