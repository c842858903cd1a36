import { getConfigToken } from '@nestjs/config';

// Injection tokens of values that are not classes.

/** The @nestjs/config namespace holding the validated `ServerConfig` (also `ConfigService.get('server')`). */
export const SERVER_CONFIG_NAMESPACE = 'server';
/** The validated `ServerConfig`, as registered with `registerAs('server', …)`. */
export const SERVER_CONFIG = getConfigToken(SERVER_CONFIG_NAMESPACE);
/** The root pino logger (structured logs on stderr). */
export const APP_LOGGER = Symbol('AppLogger');
/** The {@link SessionService} port. */
export const SESSION_SERVICE = Symbol('SessionService');
