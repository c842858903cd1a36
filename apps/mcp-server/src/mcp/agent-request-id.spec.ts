import { describe, expect, it } from 'vitest';
import { agentRequestId } from './agent-request-id.js';

describe(agentRequestId.name, () => {
  it('prefixes safe ids with mcp- when no client id was issued (stdio, clients without initialize)', () => {
    expect(agentRequestId(7)).toBe('mcp-7');
    expect(agentRequestId('req-1.a:b_c')).toBe('mcp-req-1.a:b_c');
  });

  it('names the client too, so two clients reusing a JSON-RPC id name different calls, the same on every replica', () => {
    const a = agentRequestId(3, 'client-a');
    const b = agentRequestId(3, 'client-b');
    expect(a).toMatch(/^mcp-c[0-9a-f]{16}-3$/);
    expect(a).not.toBe(b);
    expect(agentRequestId(3, 'client-a')).toBe(a);
  });

  it('hashes ids the agent would refuse, deterministically and within 128 chars', () => {
    const id = agentRequestId('has spaces/and slashes');
    expect(id).toMatch(/^mcp-h-[0-9a-f]{40}$/);
    expect(agentRequestId('has spaces/and slashes')).toBe(id);
    for (const clientId of [undefined, 'c'.repeat(128)]) {
      expect(agentRequestId('x'.repeat(500), clientId)).toMatch(/^[A-Za-z0-9._:-]{1,128}$/);
    }
  });
});
