import type { Status, StatusCause, StatusDetails } from './types.js';

/** Identifies a resource the way `schema.GroupResource` does on a real API server. */
export interface ResourceRef {
  /** Plural resource name, e.g. `pods`. */
  plural: string;
  /** API group, `''` for the core group. */
  group: string;
  /** Kind, e.g. `Pod` (used by 422 Invalid, which names the kind rather than the resource). */
  kind: string;
}

/** `pods`, `leases.coordination.k8s.io`: the `GroupResource.String()` used in real error messages. */
export function qualifiedResource(ref: ResourceRef): string {
  return ref.group ? `${ref.plural}.${ref.group}` : ref.plural;
}

/** `Pod`, `Lease.coordination.k8s.io`: the `GroupKind.String()` used by 422 Invalid messages. */
export function qualifiedKind(ref: ResourceRef): string {
  return ref.group ? `${ref.kind}.${ref.group}` : ref.kind;
}

/** An API failure carrying the exact Status body (and HTTP code) the fake answers with. */
export class KubeApiError extends Error {
  constructor(
    readonly status: Status,
    readonly headers: Record<string, string> = {},
  ) {
    super(status.message ?? status.reason ?? 'error');
    this.name = 'KubeApiError';
  }

  /** HTTP status code of the response. */
  get code(): number {
    return this.status.code ?? 500;
  }

  /** `Status.reason`, e.g. `NotFound`. */
  get reason(): string {
    return this.status.reason ?? '';
  }
}

/** Field error types of `k8s.io/apimachinery/pkg/util/validation/field`, with their wire strings. */
const FIELD_ERROR_TYPES = {
  Required: { text: 'Required value', reason: 'FieldValueRequired', showValue: false },
  Invalid: { text: 'Invalid value', reason: 'FieldValueInvalid', showValue: true },
  Forbidden: { text: 'Forbidden', reason: 'FieldValueForbidden', showValue: false },
  Duplicate: { text: 'Duplicate value', reason: 'FieldValueDuplicate', showValue: true },
  NotSupported: { text: 'Unsupported value', reason: 'FieldValueNotSupported', showValue: true },
  TooLong: { text: 'Too long', reason: 'FieldValueTooLong', showValue: false },
  TooMany: { text: 'Too many', reason: 'FieldValueTooMany', showValue: true },
  /** `field.TypeInvalid` (a value of the wrong JSON type): rendered like Invalid. */
  TypeInvalid: { text: 'Invalid value', reason: 'FieldValueTypeInvalid', showValue: true },
} as const;

/** One validation problem, rendered like `field.Error`. */
export interface FieldError {
  type: keyof typeof FIELD_ERROR_TYPES;
  field: string;
  value?: unknown;
  detail?: string;
}

function renderValue(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (value === undefined || value === null) return 'null';
  return JSON.stringify(value);
}

/** `field.Error.ErrorBody()`: `Invalid value: "x": detail`, `Required value`, … */
export function fieldErrorBody(error: FieldError): string {
  const type = FIELD_ERROR_TYPES[error.type];
  let body = type.text;
  if (type.showValue) body += `: ${renderValue(error.value)}`;
  if (error.detail) body += `: ${error.detail}`;
  return body;
}

function status(code: number, reason: string, message: string, details?: StatusDetails): Status {
  const body: Status = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason };
  if (details) body.details = details;
  body.code = code;
  return body;
}

function resourceDetails(ref: ResourceRef, name: string): StatusDetails {
  const details: StatusDetails = { name };
  if (ref.group) details.group = ref.group;
  details.kind = ref.plural;
  return details;
}

/** Factories for every Status body the fake produces, worded as a real API server words them. */
export const Statuses = {
  notFound(ref: ResourceRef, name: string): KubeApiError {
    return new KubeApiError(status(404, 'NotFound', `${qualifiedResource(ref)} "${name}" not found`, resourceDetails(ref, name)));
  },
  /** Unknown URL (no such resource or route). */
  routeNotFound(): KubeApiError {
    return new KubeApiError(status(404, 'NotFound', 'the server could not find the requested resource', {}));
  },
  alreadyExists(ref: ResourceRef, name: string): KubeApiError {
    return new KubeApiError(
      status(409, 'AlreadyExists', `${qualifiedResource(ref)} "${name}" already exists`, resourceDetails(ref, name)),
    );
  },
  /** 409 Conflict: `Operation cannot be fulfilled on pods "x": <why>`. */
  conflict(ref: ResourceRef, name: string, why = STALE_OBJECT): KubeApiError {
    return new KubeApiError(
      status(409, 'Conflict', `Operation cannot be fulfilled on ${qualifiedResource(ref)} "${name}": ${why}`, resourceDetails(ref, name)),
    );
  },
  invalid(ref: ResourceRef, name: string, errors: FieldError[]): KubeApiError {
    const rendered = errors.map((e) => `${e.field}: ${fieldErrorBody(e)}`);
    const aggregate = rendered.length === 1 ? rendered[0] : `[${rendered.join(', ')}]`;
    const causes: StatusCause[] = errors.map((e) => ({
      reason: FIELD_ERROR_TYPES[e.type].reason,
      message: fieldErrorBody(e),
      field: e.field,
    }));
    const details: StatusDetails = { name };
    if (ref.group) details.group = ref.group;
    details.kind = ref.kind;
    details.causes = causes;
    return new KubeApiError(status(422, 'Invalid', `${qualifiedKind(ref)} "${name}" is invalid: ${aggregate}`, details));
  },
  /**
   * 422 from a JSON patch that cannot be applied (failed `test`, missing path): the real server uses
   * `NewGenericServerResponse(422, …)`, whose message does not include the patch error.
   */
  patchNotApplicable(): KubeApiError {
    return new KubeApiError(status(422, 'Invalid', 'the server rejected our request due to an error in our request', {}));
  },
  badRequest(message: string): KubeApiError {
    return new KubeApiError(status(400, 'BadRequest', message));
  },
  unsupportedMediaType(accepted: readonly string[]): KubeApiError {
    return new KubeApiError(
      status(415, 'UnsupportedMediaType', `the body of the request was in an unknown format - accepted media types include: ${accepted.join(', ')}`),
    );
  },
  /** A strategic merge patch the fake cannot apply faithfully (see strategic-merge-patch.ts): still 415. */
  strategicMergeUnsupported(path: string): KubeApiError {
    return new KubeApiError(
      status(
        415,
        'UnsupportedMediaType',
        `the fake API server applies strategic merge patches of objects and scalars only; ${path} needs per-field merge rules it does not implement - send application/merge-patch+json or application/json-patch+json`,
      ),
    );
  },
  notAcceptable(): KubeApiError {
    return new KubeApiError(
      status(406, 'NotAcceptable', 'only the following media types are accepted: application/json'),
    );
  },
  methodNotAllowed(message = 'the server does not allow this method on the requested resource'): KubeApiError {
    return new KubeApiError(status(405, 'MethodNotAllowed', message, {}));
  },
  /** 403 of the impersonation filter for a caller RBAC does not let impersonate. */
  cannotImpersonate(caller: string, target: string): KubeApiError {
    return new KubeApiError(
      status(403, 'Forbidden', `users "${target}" is forbidden: User "${caller}" cannot impersonate resource "users" in API group "" at the cluster scope`, { name: target, kind: 'users' }),
    );
  },
  internalError(message: string): KubeApiError {
    return new KubeApiError(status(500, 'InternalError', `Internal error occurred: ${message}`, { causes: [{ message }] }));
  },
  unauthorized(): KubeApiError {
    return new KubeApiError(status(401, 'Unauthorized', 'Unauthorized'));
  },
  expired(message: string): KubeApiError {
    return new KubeApiError(status(410, 'Expired', message));
  },
  requestTooLarge(message: string): KubeApiError {
    return new KubeApiError(status(413, 'RequestEntityTooLarge', `Request entity too large: ${message}`));
  },
} as const;

/** The Conflict wording of a stale resourceVersion (`registry.OptimisticLockErrorMsg`). */
export const STALE_OBJECT = 'the object has been modified; please apply your changes to the latest version and try again';

/** Body of a successful DELETE for resources that do not return the object (secrets, leases). */
export function successStatus(ref: ResourceRef, name: string, uid: string | undefined): Status {
  const details: StatusDetails = { name };
  if (ref.group) details.group = ref.group;
  details.kind = ref.plural;
  if (uid) details.uid = uid;
  return { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', details };
}

/** Builds a Failure Status for arbitrary code/reason (fault injection). */
export function failureStatus(code: number, reason: string, message: string, details?: StatusDetails): Status {
  return status(code, reason, message, details);
}
