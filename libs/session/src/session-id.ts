import { SessionError, SessionErrorCode } from './session-error.js';

/** RFC 1123 DNS label, used verbatim (C-MCP-7, Go §2.3): 1–63 chars, lowercase alphanumerics and `-`. */
export const SESSION_ID_PATTERN = /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/;

export function isValidSessionId(sessionId: string): boolean {
  return typeof sessionId === 'string' && SESSION_ID_PATTERN.test(sessionId);
}

/**
 * Throws the Go catalogue's message (Go §2.2) before anything touches a backend. The id is quoted with
 * JSON.stringify (Go's `%q`), so control characters cannot forge extra lines in a tool result.
 */
export function assertValidSessionId(sessionId: string): void {
  if (!isValidSessionId(sessionId)) {
    throw new SessionError(
      SessionErrorCode.InvalidSessionId,
      `invalid session ID ${JSON.stringify(String(sessionId))}: must match RFC 1123 DNS label format`,
    );
  }
}
