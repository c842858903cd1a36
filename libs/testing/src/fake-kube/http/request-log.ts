import type { CredentialKind } from './authn.js';
import type { KubeVerb } from './request-info.js';

/** One request as the fake API server received it. */
export interface RequestRecord {
  /** 1, 2, 3… in arrival order. */
  seq: number;
  /** Arrival time (ms since the epoch). */
  timestamp: number;
  method: string;
  path: string;
  query: Record<string, string>;
  contentType?: string;
  /** `User-Agent` header (kubectl and client-node identify themselves). */
  userAgent?: string;
  /**
   * `Host` header as received: the egress tests prove the gateway pins it to the CONNECT target whatever Host the
   * sandbox wrote (C-EGR-4).
   */
  host?: string;
  /** The bearer token the request carried (`Authorization: Bearer …`), whether or not it was accepted. */
  bearerToken?: string;
  /**
   * Who the server authenticated the request as (`system:anonymous` when authentication is off and no client
   * certificate was shown); undefined when it was refused (401) or never reached authentication (a fault).
   */
  user?: string;
  /** The authenticated user name when the request impersonated `user` (`Impersonate-User`, kubectl `--as`). */
  impersonatedBy?: string;
  /** Groups of `user` (ending with `system:authenticated`). */
  groups?: string[];
  /** How `user` was established: a token of the table, a client certificate, or nothing (authentication off). */
  credential?: CredentialKind;
  /** Parsed JSON body (or the raw text when it was not JSON). */
  body?: unknown;
  /** Kubernetes verb for resource requests (`get`, `list`, `watch`, `create`, `update`, `patch`, `delete`, …). */
  verb?: KubeVerb;
  /** `pods`, `secrets`, `leases`, `selfsubjectreviews` (with `/status` when the subresource was addressed: `pods/status`). */
  resource?: string;
  namespace?: string;
  name?: string;
  /** HTTP status sent (undefined while in flight, or when the connection was dropped). */
  status?: number;
  /** Whether a fault rule answered or shaped this request. */
  faulted: boolean;
}

/** Filter for counting; every given field must match. */
export interface RequestFilter {
  verb?: KubeVerb | KubeVerb[];
  resource?: string;
  method?: string;
  namespace?: string;
  path?: RegExp;
  status?: number;
  /** The authenticated user name. */
  user?: string;
}

function matches(record: RequestRecord, filter: RequestFilter): boolean {
  if (filter.verb !== undefined) {
    const verbs = Array.isArray(filter.verb) ? filter.verb : [filter.verb];
    if (!record.verb || !verbs.includes(record.verb)) return false;
  }
  if (filter.resource !== undefined && record.resource !== filter.resource) return false;
  if (filter.method !== undefined && record.method !== filter.method.toUpperCase()) return false;
  if (filter.namespace !== undefined && record.namespace !== filter.namespace) return false;
  if (filter.path !== undefined && !filter.path.test(record.path)) return false;
  if (filter.status !== undefined && record.status !== filter.status) return false;
  if (filter.user !== undefined && record.user !== filter.user) return false;
  return true;
}

/**
 * Every request received, for assertions and for the benchmark's "API requests per N calls". Internal writes of
 * the kubelet simulator are not HTTP requests and do not appear here.
 */
export class RequestLog {
  private records: RequestRecord[] = [];
  private readonly listeners = new Set<(record: RequestRecord) => void>();
  private seq = 0;

  /** Appends a record (called by the server). */
  record(entry: Omit<RequestRecord, 'seq' | 'faulted' | 'user' | 'groups' | 'credential' | 'impersonatedBy'>): RequestRecord {
    const record: RequestRecord = { ...entry, seq: ++this.seq, faulted: false };
    this.records.push(record);
    for (const listener of this.listeners) listener(record);
    return record;
  }

  /**
   * Calls `listener` for every request as it ARRIVES — before faults and handling — so a test can change the
   * cluster exactly between two requests of a client (force an interleaving). Returns the unsubscribe function.
   */
  onRecord(listener: (record: RequestRecord) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** All records, oldest first (optionally filtered). */
  entries(filter: RequestFilter = {}): RequestRecord[] {
    return this.records.filter((r) => matches(r, filter));
  }

  count(filter: RequestFilter = {}): number {
    return this.entries(filter).length;
  }

  /** Counts keyed `"<verb> <resource>"`, e.g. `{"list pods": 3, "patch pods": 1}` (non-resource requests excluded). */
  countByVerbAndResource(filter: RequestFilter = {}): Record<string, number> {
    const counts: Record<string, number> = {};
    for (const r of this.entries(filter)) {
      if (!r.verb || !r.resource) continue;
      const key = `${r.verb} ${r.resource}`;
      counts[key] = (counts[key] ?? 0) + 1;
    }
    return counts;
  }

  /** Last record matching the filter. */
  last(filter: RequestFilter = {}): RequestRecord | undefined {
    const found = this.entries(filter);
    return found[found.length - 1];
  }

  clear(): void {
    this.records = [];
  }
}
