export * from './session-token.js';
export * from './hmac-key.js';
