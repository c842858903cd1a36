import { createSecureContext, type SecureContext } from 'node:tls';
import type { RuntimeCa } from './runtime-ca.js';

const DAY = 24 * 3_600_000;

export interface LeafCacheOptions {
  /** Leaf lifetime; default 7 days. */
  readonly validMs?: number;
  /** Re-mint when less than this fraction of the lifetime is left; default 0.2. */
  readonly renewFraction?: number;
  /** Most hosts kept; the least recently used is dropped; default 1000. */
  readonly maxEntries?: number;
  readonly now?: () => number;
}

interface Entry {
  context: Promise<SecureContext>;
  notAfter: number;
}

/**
 * Leaf TLS contexts per CONNECT host (C-EGR-4): minted once, reused warm, re-minted before expiry. Concurrent
 * CONNECTs to a new host share one mint (the promise is cached), and a failed mint is not cached.
 */
export class LeafCache {
  private readonly entries = new Map<string, Entry>();
  private readonly validMs: number;
  private readonly renewMs: number;
  private readonly maxEntries: number;
  private readonly now: () => number;
  mints = 0;

  constructor(private readonly ca: RuntimeCa, options: LeafCacheOptions = {}) {
    this.validMs = options.validMs ?? 7 * DAY;
    this.renewMs = this.validMs * (options.renewFraction ?? 0.2);
    this.maxEntries = options.maxEntries ?? 1000;
    this.now = options.now ?? Date.now;
  }

  context(host: string, ip: boolean): Promise<SecureContext> {
    const cached = this.entries.get(host);
    if (cached && cached.notAfter - this.now() > this.renewMs) {
      this.entries.delete(host);
      this.entries.set(host, cached);
      return cached.context;
    }
    this.mints += 1;
    const entry: Entry = { notAfter: Infinity, context: Promise.resolve() as unknown as Promise<SecureContext> };
    entry.context = this.ca.mintLeaf(host, ip, this.validMs).then((leaf) => {
      entry.notAfter = leaf.notAfter;
      return createSecureContext({ cert: leaf.cert, key: leaf.key, minVersion: 'TLSv1.2' });
    });
    entry.context.catch(() => this.entries.get(host) === entry && this.entries.delete(host));
    this.entries.delete(host);
    this.entries.set(host, entry);
    if (this.entries.size > this.maxEntries) this.entries.delete(this.entries.keys().next().value as string);
    return entry.context;
  }
}
