import { Controller, Delete, Inject, Param, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { endSession } from '../sessions/end-session.js';
import type { SessionService } from '../sessions/session-service.port.js';
import { APP_LOGGER, SESSION_SERVICE } from '../tokens.js';
import type { Logger } from 'pino';

/**
 * `DELETE /sessions/{id}` (C-HTTP-1): TARSy's `session_cleanup_url`. Answers are plain text as in Go
 * (`http.Error`): 204 empty, or the message and a newline.
 */
@Controller('sessions')
export class SessionsController {
  constructor(
    @Inject(SESSION_SERVICE) private readonly sessions: SessionService,
    @Inject(APP_LOGGER) private readonly logger: Logger,
  ) {}

  @Delete(':id')
  async end(@Param('id') id: string, @Res() reply: FastifyReply): Promise<void> {
    send(reply, await endSession(this.sessions, id, this.logger));
  }

  // `/sessions`, `/sessions/` and `/sessions/a/b` name no session (Go §2.5 subtree fallback).
  @Delete()
  missing(@Res() reply: FastifyReply): void {
    send(reply, { status: 400, message: 'missing session ID' });
  }

  @Delete('*')
  nested(@Res() reply: FastifyReply): void {
    send(reply, { status: 400, message: 'missing session ID' });
  }
}

function send(reply: FastifyReply, answer: { status: number; message?: string }): void {
  if (answer.status === 204) {
    void reply.code(204).send();
    return;
  }
  void reply
    .code(answer.status)
    .header('content-type', 'text/plain; charset=utf-8')
    .header('x-content-type-options', 'nosniff')
    .send(`${answer.message ?? ''}\n`);
}
