import { randomBytes } from 'node:crypto';

/**
 * The client id (C-MCP-9): issued with every `initialize` answer as `Mcp-Session-Id`, which 2025-revision clients
 * then send on every request — their `notifications/cancelled` POSTs included. It tells apart clients of one
 * `X-Session-ID` that reuse JSON-RPC ids. The server keeps nothing about it (any replica accepts any value):
 * it is a label for the client's calls, not a session in the server (docs/server.md, "Cancellation").
 */
export function newClientId(): string {
  return randomBytes(16).toString('hex');
}

/** Visible ASCII, as the MCP spec requires of session ids, and bounded. */
export const CLIENT_ID_PATTERN = /^[\x21-\x7e]{1,128}$/;
