export * from './wire.js';
export * from './agent-client.js';
export { UNIX_URL_PREFIX } from './agent-connections.js';
