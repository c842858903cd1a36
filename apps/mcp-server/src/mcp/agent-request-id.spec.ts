import { describe, expect, it } from 'vitest';
import { agentRequestId } from './agent-request-id.js';

describe(agentRequestId.name, () => {
  it('prefixes safe ids with mcp-', () => {
    expect(agentRequestId(7)).toBe('mcp-7');
    expect(agentRequestId('req-1.a:b_c')).toBe('mcp-req-1.a:b_c');
  });

  it('hashes ids the agent would refuse, deterministically and within 128 chars', () => {
    const id = agentRequestId('has spaces/and slashes');
    expect(id).toMatch(/^mcp-h-[0-9a-f]{40}$/);
    expect(agentRequestId('has spaces/and slashes')).toBe(id);
    expect(agentRequestId('x'.repeat(500)).length).toBeLessThanOrEqual(128);
  });
});
