/**
 * The one error type of the KubeApi port: an HTTP failure of the API server with its Status `reason`, or a
 * transport failure (`status` undefined). client-node's `ApiException` carries the Status as a raw string body
 * (stack-notes C); the adapter turns it into this once, so decisions (AlreadyExists vs Conflict vs NotFound)
 * never parse bodies.
 */
export class KubeError extends Error {
  constructor(
    message: string,
    /** HTTP status; undefined for transport failures (connection refused, reset, timeout). */
    readonly status: number | undefined,
    /** Status `reason` (`NotFound`, `AlreadyExists`, `Conflict`, `Expired`, …) when the server sent one. */
    readonly reason: string | undefined,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'KubeError';
  }
}

export function isNotFound(error: unknown): boolean {
  return error instanceof KubeError && error.status === 404;
}

/** 409 from a create: the object already exists (deterministic names make this the race signal, Go §3.9). */
export function isAlreadyExists(error: unknown): boolean {
  return error instanceof KubeError && error.status === 409 && error.reason === 'AlreadyExists';
}

/** 409 from a resourceVersion precondition: someone else changed the object first (claim lost, C-K8S-4). */
export function isConflict(error: unknown): boolean {
  return error instanceof KubeError && error.status === 409 && error.reason !== 'AlreadyExists';
}

/** A quota admission rejection (`exceeded quota`), reported as capacity rather than an API failure. */
export function isQuotaExceeded(error: unknown): boolean {
  return error instanceof KubeError && error.status === 403 && /exceeded quota/i.test(error.message);
}
