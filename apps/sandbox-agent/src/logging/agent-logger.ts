import { writeSync } from 'node:fs';
import { hostname } from 'node:os';
import type { LogLevel } from '../config/agent-config.js';

type Fields = Record<string, unknown>;
type LogMethod = (fieldsOrMessage: Fields | string, message?: string) => void;

/**
 * Structured JSON logs on stderr, one line per record, in pino's shape (`level` number, `time` ms, `pid`,
 * `hostname`, `name`, the fields, `msg`) so every consumer of the agent's logs reads them unchanged. Callers pass
 * fields, never the token, command text or output (C-AUTH-2): the engine and controllers log ids, sizes,
 * durations and exit codes only.
 *
 * Written here rather than with pino: loading pino (its worker-thread transport machinery included) made the
 * agent's start ~25 % dearer (+40–45 M instructions, ~20 ms) and its idle RSS 1.6 MB larger, for a process that
 * writes a handful of records (bench/agent-footprint.bench.mjs; docs/agent.md, "Start-up and footprint").
 */
export interface AgentLog {
  fatal: LogMethod;
  error: LogMethod;
  warn: LogMethod;
  info: LogMethod;
  debug: LogMethod;
  trace: LogMethod;
}

const LEVEL_NUMBERS: Readonly<Record<LogLevel, number>> = { fatal: 60, error: 50, warn: 40, info: 30, debug: 20, trace: 10, silent: Infinity };

const ignore: LogMethod = () => undefined;

/** `write` defaults to a synchronous write on fd 2: records are never lost to an exit right after them. */
export function createAgentLog(level: LogLevel, write: (line: string) => void = (line) => void writeSync(2, line)): AgentLog {
  const threshold = LEVEL_NUMBERS[level];
  const origin = `"pid":${process.pid},"hostname":${JSON.stringify(hostname())},"name":"sandbox-agent"`;
  const at = (value: number): LogMethod =>
    value < threshold
      ? ignore
      : (fieldsOrMessage, message) => {
          const fields = typeof fieldsOrMessage === 'string' ? {} : fieldsOrMessage;
          const msg = typeof fieldsOrMessage === 'string' ? fieldsOrMessage : message;
          const rest = JSON.stringify(msg === undefined ? fields : { ...fields, msg }).slice(1, -1);
          write(`{"level":${value},"time":${Date.now()},${origin}${rest === '' ? '' : `,${rest}`}}\n`);
        };
  return { fatal: at(60), error: at(50), warn: at(40), info: at(30), debug: at(20), trace: at(10) };
}
