import { isValidSessionId } from '@cli-mcp/session';
import { Inject, Injectable } from '@nestjs/common';
import type { Logger } from 'pino';
import type { ServerConfig } from '../config/server-config.js';
import type { SessionService } from '../sessions/session-service.port.js';
import { APP_LOGGER, SERVER_CONFIG, SESSION_SERVICE } from '../tokens.js';

/**
 * Eager acquisition (C-MCP-13): a request with a valid session that is not a `tools/call` — `initialize`,
 * `server/discover`, `tools/list`, `ping` — starts acquiring the session's sandbox in the background, so it is
 * ready while the model thinks about its first command. Shares the single flight with that command; failures are
 * logged (and counted by the session metrics), never surfaced to the request. Without a session id nothing is
 * allocated (C-MCP-7).
 */
@Injectable()
export class EagerAcquisition {
  constructor(
    @Inject(SERVER_CONFIG) private readonly config: ServerConfig,
    @Inject(SESSION_SERVICE) private readonly sessions: SessionService,
    @Inject(APP_LOGGER) private readonly logger: Logger,
  ) {}

  /** Called for every request a server receives (notifications are not requests). */
  noticeRequest(sessionId: string | undefined, method: string): void {
    if (!this.config.eagerAcquire || method === 'tools/call' || !sessionId || !isValidSessionId(sessionId)) return;
    this.sessions.prepare(sessionId).catch((error: unknown) => {
      this.logger.warn(
        { event: 'eager_acquire', session_id: sessionId, trigger: method, error: error instanceof Error ? error.message : String(error) },
        'eager sandbox acquisition failed; the first command will acquire again',
      );
    });
  }
}
