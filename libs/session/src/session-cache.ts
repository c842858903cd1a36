import type { Clock } from '@cli-mcp/common';
import type { SandboxHandle } from './sandbox-backend.port.js';

export const DEFAULT_CACHE_TTL_MS = 30_000;
export const DEFAULT_CACHE_MAX_ENTRIES = 10_000;

export interface SessionCacheOptions {
  /** TTL counted from `set`; ≤ 0 or absent → 30 s (Go §3.7, C-K8S-4 `--cache-ttl`). */
  ttlMs?: number;
  /** Upper bound of entries; the oldest entry is dropped first. */
  maxEntries?: number;
}

interface Entry {
  handle: SandboxHandle;
  expiresAt: number;
}

/**
 * Per-replica map sessionId → sandbox handle (Go §3.7). Only a speed-up: the backend stays the source of truth,
 * so losing an entry costs one lookup. Hits do not extend the TTL, which bounds how long a replica can keep
 * talking to a sandbox another replica deleted. Unlike Go, expired entries are evicted on every write and the
 * map is capped, so sessions that are never queried again cannot grow it without bound.
 */
export class SessionCache {
  private readonly entries = new Map<string, Entry>();
  private readonly ttlMs: number;
  private readonly maxEntries: number;

  constructor(
    private readonly clock: Clock,
    options: SessionCacheOptions = {},
  ) {
    this.ttlMs = options.ttlMs && options.ttlMs > 0 ? options.ttlMs : DEFAULT_CACHE_TTL_MS;
    this.maxEntries = options.maxEntries && options.maxEntries > 0 ? options.maxEntries : DEFAULT_CACHE_MAX_ENTRIES;
  }

  get ttl(): number {
    return this.ttlMs;
  }

  get size(): number {
    return this.entries.size;
  }

  get(sessionId: string): SandboxHandle | undefined {
    const entry = this.entries.get(sessionId);
    if (!entry) return undefined;
    if (this.clock.now() >= entry.expiresAt) {
      this.entries.delete(sessionId);
      return undefined;
    }
    return entry.handle;
  }

  set(sessionId: string, handle: SandboxHandle): void {
    this.evictExpired();
    // Re-insert so Map order stays "oldest write first" for the cap below.
    this.entries.delete(sessionId);
    this.entries.set(sessionId, { handle, expiresAt: this.clock.now() + this.ttlMs });
    while (this.entries.size > this.maxEntries) {
      const oldest = this.entries.keys().next().value as string;
      this.entries.delete(oldest);
    }
  }

  delete(sessionId: string): void {
    this.entries.delete(sessionId);
  }

  /** Deletes the entry only if it still points at `agentUrl`, so a fresher entry survives (Go §3.7). */
  invalidate(sessionId: string, agentUrl: string): boolean {
    const entry = this.entries.get(sessionId);
    if (!entry || entry.handle.agentUrl !== agentUrl) return false;
    this.entries.delete(sessionId);
    return true;
  }

  /** Removes every expired entry; returns how many were removed. */
  evictExpired(): number {
    const now = this.clock.now();
    let removed = 0;
    for (const [sessionId, entry] of this.entries) {
      if (now >= entry.expiresAt) {
        this.entries.delete(sessionId);
        removed++;
      }
    }
    return removed;
  }

  clear(): void {
    this.entries.clear();
  }
}
