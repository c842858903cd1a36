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
