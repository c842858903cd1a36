/** JSON values as they travel over the wire. */
export type JsonValue = null | boolean | number | string | JsonValue[] | JsonObject;
export interface JsonObject {
  [key: string]: JsonValue;
}

/** The subset of `metav1.ObjectMeta` the fake API server understands; other keys are stored verbatim. */
export interface ObjectMeta {
  name?: string;
  generateName?: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  creationTimestamp?: string;
  deletionTimestamp?: string;
  deletionGracePeriodSeconds?: number;
  /** Set by the server on resources that track it (custom resources, Deployments…): see ResourceDefinition. */
  generation?: number;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  finalizers?: string[];
  [key: string]: unknown;
}

/** Any stored object (Pod, Secret, Lease). Kept as plain JSON: the fake never uses client types. */
export interface KubeObject {
  apiVersion?: string;
  kind?: string;
  metadata: ObjectMeta;
  [key: string]: unknown;
}

/** `metav1.StatusCause`. */
export interface StatusCause {
  reason?: string;
  message?: string;
  field?: string;
}

/** `metav1.StatusDetails` (note: `kind` holds the resource plural for most errors, as on a real server). */
export interface StatusDetails {
  name?: string;
  group?: string;
  kind?: string;
  uid?: string;
  causes?: StatusCause[];
  retryAfterSeconds?: number;
}

/** `metav1.Status`, the body of every error response and of a successful DELETE of secrets/leases. */
export interface Status {
  kind: 'Status';
  apiVersion: 'v1';
  metadata: Record<string, never>;
  status: 'Success' | 'Failure';
  message?: string;
  reason?: string;
  details?: StatusDetails;
  code?: number;
}

/** Watch event types on the wire. */
export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';

/** Returns a deep copy of a JSON-compatible value. */
export function cloneJson<T>(value: T): T {
  return structuredClone(value);
}

/** Whether `value` is a plain JSON object (not an array, not null). */
export function isJsonObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
