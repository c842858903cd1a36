/**
 * Faithful in-memory Leases for the elector's unit specs: one store with resourceVersion concurrency (409 Conflict
 * on a stale update, 409 AlreadyExists on create, 404 on get), and per-candidate "network" views that can be
 * partitioned (requests hang until their signal aborts) or failed. Every write is recorded with the store's
 * fake time, so specs can prove orderings.
 */
import type { V1Lease } from '@kubernetes/client-node';
import { KubeError, leaseBody, leaseRecordOf, type LeaseApi, type LeaseRecord } from '@cli-mcp/kube';
import type { FakeClock } from '@cli-mcp/testing';

export interface LeaseWrite {
  readonly at: number;
  readonly by: string;
  readonly verb: 'create' | 'update';
  readonly record: LeaseRecord;
}

export class LeaseStore {
  private lease?: V1Lease;
  private version = 0;
  readonly writes: LeaseWrite[] = [];

  constructor(private readonly clock: FakeClock) {}

  get current(): LeaseRecord | undefined {
    return this.lease && leaseRecordOf(this.lease);
  }

  get(name: string): V1Lease {
    if (!this.lease || this.lease.metadata?.name !== name) throw new KubeError(`leases.coordination.k8s.io "${name}" not found`, 404, 'NotFound');
    return structuredClone(this.lease);
  }

  create(lease: V1Lease, by: string): V1Lease {
    if (this.lease) throw new KubeError(`leases.coordination.k8s.io "${lease.metadata?.name}" already exists`, 409, 'AlreadyExists');
    return this.store(lease, by, 'create');
  }

  replace(lease: V1Lease, by: string): V1Lease {
    if (!this.lease) throw new KubeError('not found', 404, 'NotFound');
    const given = lease.metadata?.resourceVersion;
    if (given !== undefined && given !== this.lease.metadata?.resourceVersion) {
      throw new KubeError('Operation cannot be fulfilled on leases.coordination.k8s.io: the object has been modified', 409, 'Conflict');
    }
    return this.store(lease, by, 'update');
  }

  /** A write by someone outside the candidates (an operator editing the Lease, another tool). */
  overwrite(record: Partial<LeaseRecord>): void {
    const merged = { ...(this.current ?? { holderIdentity: '', leaseDurationSeconds: 15, leaseTransitions: 0 }), ...record };
    this.store(leaseBody(this.lease?.metadata?.name ?? 'lease', merged), 'outsider', 'update');
  }

  private store(lease: V1Lease, by: string, verb: LeaseWrite['verb']): V1Lease {
    // The wire format: MicroTimes are strings with six fractional digits, as the real server requires.
    const wire = JSON.parse(JSON.stringify(lease)) as V1Lease;
    for (const field of ['acquireTime', 'renewTime'] as const) {
      const value = wire.spec?.[field] as unknown;
      if (value !== undefined && !/\.\d{6}Z$/.test(String(value))) throw new KubeError(`Lease in version "v1" cannot be handled as a Lease: ${field}`, 400, 'BadRequest');
    }
    this.version++;
    this.lease = { ...wire, metadata: { ...wire.metadata, resourceVersion: String(this.version) } };
    this.writes.push({ at: this.clock.now(), by, verb, record: leaseRecordOf(this.lease) });
    return structuredClone(this.lease);
  }
}

/** What one candidate's network does to its requests. */
export type NetworkMode = 'ok' | 'partitioned' | 'failing';

/** One candidate's view of the store through its own network. */
export class CandidateLeaseApi implements LeaseApi {
  readonly namespace = 'cli-mcp';
  mode: NetworkMode = 'ok';
  requests = 0;

  constructor(
    private readonly store: LeaseStore,
    private readonly identity: string,
  ) {}

  getLease(name: string, signal: AbortSignal): Promise<V1Lease | undefined> {
    return this.send(signal, () => {
      try {
        return this.store.get(name);
      } catch (error) {
        if (error instanceof KubeError && error.status === 404) return undefined;
        throw error;
      }
    });
  }

  createLease(lease: V1Lease, signal: AbortSignal): Promise<V1Lease> {
    return this.send(signal, () => this.store.create(lease, this.identity));
  }

  replaceLease(lease: V1Lease, signal: AbortSignal): Promise<V1Lease> {
    return this.send(signal, () => this.store.replace(lease, this.identity));
  }

  private send<T>(signal: AbortSignal, apply: () => T): Promise<T> {
    this.requests++;
    if (this.mode === 'failing') return Promise.reject(new KubeError('connect ECONNREFUSED', undefined, undefined));
    if (this.mode === 'partitioned') {
      // Nothing reaches the server; the request hangs until its caller gives up.
      return new Promise((_, reject) => signal.addEventListener('abort', () => reject(new KubeError('request aborted', undefined, undefined)), { once: true }));
    }
    return Promise.resolve().then(apply);
  }
}
