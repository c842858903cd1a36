import type { Logger } from 'pino';
import { isValidSessionId } from '@cli-mcp/session';
import { describeSessionFailure } from './session-failure.js';
import type { SessionService } from './session-service.port.js';

/** TARSy gives up after 15 s; a release that takes longer still finishes in the backend. */
const END_TIMEOUT_MS = 30_000;

export interface EndAnswer {
  readonly status: number;
  readonly message?: string;
}

/**
 * Ends a session for `DELETE /sessions/{id}` (C-HTTP-1): 204 (idempotent), 400 for a missing or malformed id
 * (no backend call), 500 `failed to end session` on failure with the details only in the log.
 */
export async function endSession(sessions: SessionService, id: string | undefined, logger: Logger): Promise<EndAnswer> {
  if (!id) return { status: 400, message: 'missing session ID' };
  if (!isValidSessionId(id)) return { status: 400, message: 'invalid session ID format' };
  try {
    await sessions.end(id, AbortSignal.timeout(END_TIMEOUT_MS));
    logger.info({ event: 'session_end', session_id: id }, 'session ended');
    return { status: 204 };
  } catch (error) {
    const failure = describeSessionFailure(error, id);
    logger.error({ event: 'session_end', session_id: id, error: error instanceof Error ? error.message : String(error) }, 'session cleanup failed');
    return { status: failure.httpStatus, message: failure.httpMessage };
  }
}
