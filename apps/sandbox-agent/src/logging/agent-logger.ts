import type { LoggerService } from '@nestjs/common';
import { pino, type Logger } from 'pino';
import type { LogLevel } from '../config/agent-config.js';

/**
 * Structured JSON logs on stderr. Callers pass fields, never the token, command text or output (C-AUTH-2): the
 * engine and controllers only log ids, sizes, durations and exit codes.
 */
export type AgentLog = Logger;

export function createAgentLog(level: LogLevel): AgentLog {
  return pino({ name: 'sandbox-agent', level }, pino.destination({ dest: 2, sync: true }));
}

/** Nest's framework messages (route mapping, module init) go to the same log; `log` is chatter → debug. */
export class NestLogAdapter implements LoggerService {
  constructor(private readonly target: AgentLog) {}

  log(message: unknown, ...params: unknown[]): void {
    this.target.debug({ context: contextOf(params) }, String(message));
  }

  error(message: unknown, ...params: unknown[]): void {
    this.target.error({ context: contextOf(params) }, String(message));
  }

  warn(message: unknown, ...params: unknown[]): void {
    this.target.warn({ context: contextOf(params) }, String(message));
  }

  debug(message: unknown, ...params: unknown[]): void {
    this.target.debug({ context: contextOf(params) }, String(message));
  }

  verbose(message: unknown, ...params: unknown[]): void {
    this.target.trace({ context: contextOf(params) }, String(message));
  }

  fatal(message: unknown, ...params: unknown[]): void {
    this.target.fatal({ context: contextOf(params) }, String(message));
  }
}

function contextOf(params: unknown[]): string | undefined {
  const last = params[params.length - 1];
  return typeof last === 'string' ? last : undefined;
}
