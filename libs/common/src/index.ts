export * from './duration.js';
export * from './flags/flag-spec.js';
export * from './flags/read-raw-flags.js';
export * from './flags/flag-reader.js';
export * from './flags/render-help.js';
export * from './net/address.js';
export * from './logging/pino-logger.js';
export * from './config/settings.js';
