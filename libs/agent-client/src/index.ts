export * from './wire.js';
export * from './agent-client.js';
export * from './agent-error.js';
export { UNIX_URL_PREFIX } from './agent-connections.js';
