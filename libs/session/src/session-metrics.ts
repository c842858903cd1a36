import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import type { AcquirePath } from './sandbox-backend.port.js';

/** Metric names of libs/session (contract §9). Labels are bounded enums: never session ids or sandbox names. */
export const SESSION_METRIC_NAMES = {
  lookups: 'cli_mcp_session_lookups_total',
  acquireSeconds: 'cli_mcp_session_acquire_seconds',
  sandboxReadySeconds: 'cli_mcp_sandbox_ready_seconds',
  execDurationSeconds: 'cli_mcp_exec_duration_seconds',
  execOutputBytes: 'cli_mcp_exec_output_bytes',
  sessionsCached: 'cli_mcp_sessions_cached',
  acquisitions: 'cli_mcp_sandbox_acquisitions_total',
} as const;

/**
 * `tier=cache`: hit|miss of the replica cache, per lookup. `tier=backend`, once per acquisition (single flight):
 * hit = existing sandbox found, miss = claimed or created, error; and `shared` per lookup that joined an
 * acquisition already in flight instead of starting one (C-K8S-4, C-MCP-13). Cache misses = backend hit + miss +
 * error + shared (+ acquisitions every waiter abandoned).
 */
export type LookupTier = 'cache' | 'backend';
export type LookupResult = 'hit' | 'miss' | 'error' | 'shared';
export type ExecOutcome = 'ok' | 'nonzero' | 'timeout' | 'cancelled' | 'error';
/** What started a backend acquisition: a command (`call`) or a request before any command (`eager`, C-MCP-13). */
export type AcquireTrigger = 'eager' | 'call';

const SECONDS_BUCKETS = [0.001, 0.005, 0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];
const EXEC_BUCKETS = [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300];
const BYTES_BUCKETS = [0, 64, 512, 4096, 32_768, 262_144, 1_048_576, 8_388_608];

/**
 * The session metrics on the app's own registry (C-HTTP-3: never the global one). Create ONE per registry and
 * hand it to the manager and the backend: registering a name twice on a registry throws.
 */
export class SessionMetrics {
  private readonly lookups: Counter<'tier' | 'result'>;
  private readonly acquireSeconds: Histogram<'path'>;
  private readonly readySeconds: Histogram;
  private readonly execSeconds: Histogram<'outcome'>;
  private readonly outputBytes: Histogram;
  private readonly acquisitions: Counter<'trigger' | 'result'>;
  private cachedSource: () => number = () => 0;

  constructor(registry: Registry) {
    const registers = [registry];
    this.lookups = new Counter({
      name: SESSION_METRIC_NAMES.lookups, help: 'Session to sandbox lookups by tier and result',
      labelNames: ['tier', 'result'], registers,
    });
    this.acquireSeconds = new Histogram({
      name: SESSION_METRIC_NAMES.acquireSeconds, help: 'Time to find or make the sandbox of a session, by path: one per cache hit, one per backend acquisition',
      labelNames: ['path'], buckets: SECONDS_BUCKETS, registers,
    });
    this.readySeconds = new Histogram({
      name: SESSION_METRIC_NAMES.sandboxReadySeconds, help: 'Time from starting a sandbox until its agent is ready',
      buckets: SECONDS_BUCKETS, registers,
    });
    this.execSeconds = new Histogram({
      name: SESSION_METRIC_NAMES.execDurationSeconds, help: 'Duration of bash executions seen by the server, by outcome',
      labelNames: ['outcome'], buckets: EXEC_BUCKETS, registers,
    });
    this.outputBytes = new Histogram({
      name: SESSION_METRIC_NAMES.execOutputBytes, help: 'Bytes written to stdout plus stderr per execution',
      buckets: BYTES_BUCKETS, registers,
    });
    this.acquisitions = new Counter({
      name: SESSION_METRIC_NAMES.acquisitions, help: 'Backend acquisitions of a session sandbox, by what started them and result',
      labelNames: ['trigger', 'result'], registers,
    });
    const source = (): number => this.cachedSource();
    new Gauge({
      name: SESSION_METRIC_NAMES.sessionsCached, help: 'Sessions in this replica\'s sandbox cache', registers,
      collect() {
        this.set(source());
      },
    });
  }

  /** The gauge is read at scrape time from the owner of the cache. */
  bindCachedSessions(source: () => number): void {
    this.cachedSource = source;
  }

  lookup(tier: LookupTier, result: LookupResult): void {
    this.lookups.inc({ tier, result });
  }

  /** A cache hit, or one backend acquisition (its own duration; the requests that shared it add nothing). */
  acquired(path: AcquirePath, seconds: number): void {
    this.acquireSeconds.observe({ path }, seconds);
  }

  sandboxReady(seconds: number): void {
    this.readySeconds.observe(seconds);
  }

  /** One backend acquisition (not a cache hit) finished; counted once per single flight, for its starter. */
  acquisition(trigger: AcquireTrigger, result: 'ok' | 'error'): void {
    this.acquisitions.inc({ trigger, result });
  }

  executed(outcome: ExecOutcome, seconds: number, outputBytes?: number): void {
    this.execSeconds.observe({ outcome }, seconds);
    if (outputBytes !== undefined) this.outputBytes.observe(outputBytes);
  }
}
