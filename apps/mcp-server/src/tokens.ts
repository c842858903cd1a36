/** Injection tokens of values that are not classes. */
export const SERVER_CONFIG = Symbol('ServerConfig');
/** The root pino logger (structured logs on stderr). */
export const APP_LOGGER = Symbol('AppLogger');
/** The {@link SessionService} port. */
export const SESSION_SERVICE = Symbol('SessionService');
