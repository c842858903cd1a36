import { LOG_LEVELS, type LogLevelName } from '../logging/pino-logger.js';
import { Flag, FlagGroup, OneOf } from './settings.js';

export const OTHER_GROUP = 'Other';

/** The flags every command of this project takes, declared once: the log level, `--help`, `--version`. */
@FlagGroup(OTHER_GROUP)
export class StandardSettings {
  @Flag('log-level', { valueName: 'level', default: 'info', description: 'trace, debug, info, warn, error, fatal or silent (JSON lines on stderr).' })
  @OneOf(LOG_LEVELS)
  logLevel!: LogLevelName;

  @Flag('help', { type: 'boolean', short: 'h', noEnv: true, description: 'Print this help and exit.' })
  help!: boolean;

  @Flag('version', { type: 'boolean', short: 'v', noEnv: true, description: 'Print the version and exit.' })
  version!: boolean;
}
