import { createHash } from 'node:crypto';

const SAFE = /^[A-Za-z0-9._:-]{1,120}$/;

/**
 * The agent-side id of an MCP call: `mcp-<JSON-RPC id>` (C-MCP-9). Every replica derives the same value from the
 * same JSON-RPC id, so a `notifications/cancelled` landing anywhere can name the running command. Ids the agent
 * would refuse (≤ 128 chars of `[A-Za-z0-9._:-]`) are hashed, deterministically.
 */
export function agentRequestId(requestId: string | number): string {
  const text = String(requestId);
  if (SAFE.test(text)) return `mcp-${text}`;
  return `mcp-h-${createHash('sha256').update(`${typeof requestId}:${text}`).digest('hex').slice(0, 40)}`;
}
