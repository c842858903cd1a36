export type { LeaseApi } from './lease-api.port.js';
export { leaseBody, leaseRecordOf, sameRecord, type LeaseRecord } from './lease-record.js';
export {
  CLOCK_SKEW_TOLERANCE_MS, controllerLeaseStatus, describeControllerStatus, probeControllerLease, type ControllerLeaseStatus,
} from './controller-lease-status.js';
