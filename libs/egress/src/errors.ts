/**
 * Every refusal of the gateway, as a code mapped to its HTTP status in this one place (C-EGR-2…5). The code is
 * the audit record's `reason` and the `error` of the JSON body the client sees.
 */
export const EGRESS_ERRORS = {
  bad_authority: 400,
  bad_request: 400,
  authority_mismatch: 421,
  bad_path: 400,
  not_allowed: 403,
  method_refused: 405,
  address_refused: 403,
  plain_http_refused: 403,
  upgrade_refused: 403,
  path_denied: 403,
  session_revoked: 403,
  too_many_connections: 429,
  resolve_failed: 502,
  upstream_failed: 502,
  credential_missing: 502,
  upstream_timeout: 504,
} as const;

export type EgressErrorCode = keyof typeof EGRESS_ERRORS;

/** A refusal with the code, a message for a human and optional fields for the JSON body (never a credential). */
export class EgressError extends Error {
  readonly status: number;

  constructor(
    readonly code: EgressErrorCode,
    message: string,
    readonly details: Record<string, string> = {},
  ) {
    super(message);
    this.status = EGRESS_ERRORS[code];
  }

  /** The body the client gets: `{"error": code, "message": …, …details}`. */
  body(): string {
    return JSON.stringify({ error: this.code, message: this.message, ...this.details });
  }
}

/** Anything thrown while forwarding becomes an EgressError; unknown errors never reach the client as a stack. */
export function toEgressError(error: unknown): EgressError {
  if (error instanceof EgressError) return error;
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (code === 'ETIMEDOUT' || code === 'UND_ERR_CONNECT_TIMEOUT') return new EgressError('upstream_timeout', 'the upstream did not answer in time');
  return new EgressError('upstream_failed', `the upstream connection failed${code ? ` (${code})` : ''}`);
}
