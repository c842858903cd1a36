import { SessionError, SessionErrorCode } from '@cli-mcp/session';
import { quoteSessionId } from './session-id.js';

/** How one session failure is shown: the tool error text (C-MCP-4) and the HTTP answer (C-HTTP-1). */
export interface SessionFailure {
  /** Bounded label for logs and outcome fields. */
  readonly reason: string;
  readonly toolText: string;
  readonly httpStatus: number;
  /** Generic on purpose: details go to the logs only (C-HTTP-1). */
  readonly httpMessage: string;
}

const EXEC_FAILED = 'sandbox exec failed: ';

/**
 * The one place where session errors become user-facing text (engineering guide, style rule 3). The switch is
 * exhaustive: a new `SessionErrorCode` does not compile until it is mapped here. Messages of `SessionError` are
 * safe to show (no token, no stack); anything else is an internal error whose details stay in the logs.
 */
export function describeSessionFailure(error: unknown, sessionId: string): SessionFailure {
  if (!(error instanceof SessionError)) {
    return { reason: 'internal', toolText: `${EXEC_FAILED}internal error (see the server logs)`, httpStatus: 500, httpMessage: 'failed to end session' };
  }
  const code = error.code;
  switch (code) {
    case SessionErrorCode.InvalidSessionId:
      return {
        reason: 'invalid_session_id',
        toolText: invalidSessionIdText(sessionId),
        httpStatus: 400,
        httpMessage: 'invalid session ID format',
      };
    case SessionErrorCode.SandboxUnavailable:
      return failed('sandbox_unavailable', error.message);
    case SessionErrorCode.CapacityExhausted:
      return failed('capacity_exhausted', error.message);
    case SessionErrorCode.AgentFailure:
      return failed('agent_failure', error.message);
    case SessionErrorCode.BackendFailure:
      return failed('backend_failure', error.message);
    case SessionErrorCode.EgressNotEnforced:
      return failed('egress_not_enforced', error.message);
    case SessionErrorCode.Cancelled:
      return failed('cancelled', 'the request was cancelled');
    case SessionErrorCode.ShuttingDown:
      return { ...failed('shutting_down', 'the server is shutting down; retry the command'), httpStatus: 503, httpMessage: 'server is shutting down' };
    default:
      return assertUnreachable(code);
  }
}

/** Tool text for a session id that is not an RFC 1123 label (C-MCP-4: contains `invalid session ID`). */
export function invalidSessionIdText(sessionId: string): string {
  return `invalid session ID ${quoteSessionId(sessionId)}: must be an RFC 1123 label (lowercase letters, digits and "-", 1-63 characters)`;
}

function failed(reason: string, cause: string): SessionFailure {
  return { reason, toolText: `${EXEC_FAILED}${cause}`, httpStatus: 500, httpMessage: 'failed to end session' };
}

function assertUnreachable(code: never): never {
  throw new Error(`unmapped session error code ${String(code)}`);
}
