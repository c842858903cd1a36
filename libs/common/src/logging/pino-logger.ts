import type { LoggerService } from '@nestjs/common';
import { pino, type DestinationStream, type Level, type Logger } from 'pino';

/** Levels accepted by `--log-level`. */
export const LOG_LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'] as const;
export type LogLevelName = (typeof LOG_LEVELS)[number];

/**
 * Keys whose values never reach a log line (C-AUTH-2): bearer headers, tokens, keys. Matched at the top level and
 * two levels down, where request headers and option objects sit.
 */
const SECRET_KEYS = ['authorization', 'token', 'hmacKey', 'hmac_key', 'authToken', 'auth_token'];
const REDACT_PATHS = SECRET_KEYS.flatMap((key) => [key, `*.${key}`, `*.*.${key}`]);

export interface RootLoggerOptions {
  readonly level: LogLevelName;
  /** Fields on every line, e.g. `{server: 'cli-mcp-server'}` (Go §7.3). */
  readonly base: Record<string, unknown>;
  /** Defaults to fd 2, synchronously: stdout stays protocol-only in stdio mode (stack-notes A.5). */
  readonly destination?: DestinationStream;
}

/** JSON lines on stderr with ISO timestamps, level names and secret keys redacted. */
export function createRootLogger(options: RootLoggerOptions): Logger {
  return pino(
    {
      level: options.level,
      base: options.base,
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
      redact: { paths: REDACT_PATHS, censor: '[redacted]' },
    },
    options.destination ?? pino.destination({ fd: 2, sync: true }),
  );
}

/**
 * A child for hot records whose fields the caller CHOOSES — literals and values it computed, never an object copied
 * from a request (headers, options, bodies): it skips the redaction walk (issue 11: one record per call, ≈ 5 µs warm
 * and several times that cold). Anything else keeps using a redacting logger (C-AUTH-2).
 */
export function chosenFieldsLogger(logger: Logger, bindings: Record<string, string>): Logger {
  return logger.child(bindings, { redact: { paths: [] } });
}

/**
 * Nest `LoggerService` over pino, so framework messages (route mapping, Terminus) land in the same JSON stream.
 * Nest passes `(message, ...params)` with the context as the last string and, for `error`, an optional stack.
 */
export class PinoLoggerService implements LoggerService {
  constructor(private readonly logger: Logger) {}

  log(message: unknown, ...params: unknown[]): void {
    this.write('info', message, params);
  }

  error(message: unknown, ...params: unknown[]): void {
    this.write('error', message, params);
  }

  warn(message: unknown, ...params: unknown[]): void {
    this.write('warn', message, params);
  }

  debug(message: unknown, ...params: unknown[]): void {
    this.write('debug', message, params);
  }

  verbose(message: unknown, ...params: unknown[]): void {
    this.write('trace', message, params);
  }

  fatal(message: unknown, ...params: unknown[]): void {
    this.write('fatal', message, params);
  }

  private write(level: Level, message: unknown, params: unknown[]): void {
    const fields: Record<string, unknown> = {};
    const rest = [...params];
    if (rest.length > 0 && typeof rest[rest.length - 1] === 'string') fields.context = rest.pop();
    if (level === 'error' && typeof rest[0] === 'string') fields.stack = rest.shift();
    if (message instanceof Error) {
      this.logger[level]({ ...fields, err: message }, message.message);
    } else if (typeof message === 'object' && message !== null) {
      this.logger[level]({ ...fields, ...(message as Record<string, unknown>) });
    } else {
      this.logger[level](fields, String(message));
    }
  }
}
