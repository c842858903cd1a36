import { createHash } from 'node:crypto';

const SAFE = /^[A-Za-z0-9._:-]{1,100}$/;

/**
 * The agent-side id of an MCP call (C-MCP-9), which names it for cancels and progress peeks. Every replica
 * derives the same value from what a `notifications/cancelled` carries — the client id the server issued at
 * `initialize` (2025 HTTP clients echo it as `Mcp-Session-Id`) and the client's JSON-RPC id — so a cancel landing
 * anywhere names the running command, and two clients of one session that reuse a JSON-RPC id name different
 * commands. Without a client id (stdio, clients that never initialize): `mcp-<JSON-RPC id>`. Ids the agent would
 * refuse (≤ 128 chars of `[A-Za-z0-9._:-]`) are hashed, deterministically.
 */
export function agentRequestId(requestId: string | number, clientId?: string): string {
  const text = String(requestId);
  const client = clientId === undefined ? '' : `c${digest(clientId).slice(0, 16)}-`;
  if (SAFE.test(text)) return `mcp-${client}${text}`;
  return `mcp-${client}h-${digest(`${typeof requestId}:${text}`).slice(0, 40)}`;
}

function digest(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}
