export * from './session-token.js';
export * from './hmac-key.js';
export * from './node-crypto.js';
