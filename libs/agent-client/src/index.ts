export * from './wire.js';
export * from './agent-client.js';
export * from './agent-error.js';
