import type { V1Lease } from '@kubernetes/client-node';
import { controllerLeaseName } from '@cli-mcp/podspec';
import type { LeaseApi } from './lease-api.port.js';
import { leaseRecordOf } from './lease-record.js';

/**
 * What the server's `/health` says about the sandbox controller of its instance (issue 9): whether a controller
 * holds the instance's Lease and renews it. Freshness compares the holder's `renewTime` with this process's wall
 * clock, so clock skew between the two machines up to {@link CLOCK_SKEW_TOLERANCE_MS} is tolerated; the
 * controllers themselves never compare clocks (they use observed time, client-go semantics).
 */
export type ControllerLeaseStatus =
  | { readonly state: 'running'; readonly holder: string; readonly renewedSecondsAgo: number }
  /** A holder is named but has not renewed within the lease duration: it crashed or lost the API. */
  | { readonly state: 'stale'; readonly holder: string; readonly renewedSecondsAgo: number | undefined }
  /** A controller released the Lease on shutdown and no other took it. */
  | { readonly state: 'released' }
  /** No controller ever ran for this instance (or its Lease was deleted). */
  | { readonly state: 'absent' };

export const CLOCK_SKEW_TOLERANCE_MS = 5_000;

export function controllerLeaseStatus(lease: V1Lease | undefined, now: Date): ControllerLeaseStatus {
  if (!lease) return { state: 'absent' };
  const record = leaseRecordOf(lease);
  if (record.holderIdentity === '') return { state: 'released' };
  const renewed = record.renewTime?.getTime();
  const ageMs = renewed === undefined ? undefined : now.getTime() - renewed;
  const renewedSecondsAgo = ageMs === undefined ? undefined : Math.max(0, Math.round(ageMs / 1000));
  const fresh = ageMs !== undefined && ageMs <= record.leaseDurationSeconds * 1000 + CLOCK_SKEW_TOLERANCE_MS;
  if (fresh) return { state: 'running', holder: record.holderIdentity, renewedSecondsAgo: renewedSecondsAgo ?? 0 };
  return { state: 'stale', holder: record.holderIdentity, renewedSecondsAgo };
}

/** One sentence for an operator (`/health` details). */
export function describeControllerStatus(status: ControllerLeaseStatus): string {
  switch (status.state) {
    case 'running':
      return `controller ${status.holder} holds the lease (renewed ${status.renewedSecondsAgo}s ago)`;
    case 'stale':
      return `no controller running: ${status.holder} holds the lease but has not renewed it${
        status.renewedSecondsAgo === undefined ? '' : ` for ${status.renewedSecondsAgo}s`
      } (warm pool and idle GC are not maintained)`;
    case 'released':
      return 'no controller running: the lease was released (warm pool and idle GC are not maintained)';
    case 'absent':
      return 'no controller running: no controller lease exists for this instance (warm pool and idle GC are not maintained)';
  }
}

/** Reads the controller Lease of `instance` through `api` and judges it at `now` (the server's `/health`). */
export async function probeControllerLease(api: LeaseApi, instance: string, now: () => Date, signal: AbortSignal): Promise<ControllerLeaseStatus> {
  return controllerLeaseStatus(await api.getLease(controllerLeaseName(instance), signal), now());
}
