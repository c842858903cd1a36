import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { McpMetrics } from './mcp-metrics.js';
import { MeteredTransport } from './metered-transport.js';

class MemoryTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  readonly sent: JSONRPCMessage[] = [];
  async start(): Promise<void> {}
  async close(): Promise<void> {
    this.onclose?.();
  }
  async send(message: JSONRPCMessage): Promise<void> {
    this.sent.push(message);
  }
}

function setup() {
  const registry = new Registry();
  const inner = new MemoryTransport();
  let clock = 0;
  const sut = new MeteredTransport(inner, new McpMetrics(registry), () => undefined, () => clock);
  const received: JSONRPCMessage[] = [];
  sut.onmessage = (message) => received.push(message);
  return { registry, inner, sut, received, advance: (ms: number) => (clock += ms) };
}

async function count(registry: Registry, labels: string): Promise<number | undefined> {
  const line = (await registry.metrics()).split('\n').find((l) => l.startsWith(`mcp_calls_total{${labels}}`));
  return line === undefined ? undefined : Number(line.split(' ').at(-1));
}

describe(MeteredTransport.name, () => {
  it('passes messages through and observes a request when its response leaves', async () => {
    const { registry, inner, sut, received, advance } = setup();
    inner.onmessage?.({ jsonrpc: '2.0', id: 1, method: 'tools/list' });
    expect(received).toHaveLength(1);
    advance(30);
    await sut.send({ jsonrpc: '2.0', id: 1, result: { tools: [] } });
    expect(inner.sent).toHaveLength(1);
    expect(await count(registry, 'server="cli-mcp-server",method="tools/list",name="",success="true"')).toBe(1);
    expect(await registry.metrics()).toContain('mcp_call_duration_seconds_bucket{le="0.05",server="cli-mcp-server",method="tools/list",name="",success="true"} 1');
  });

  it('counts isError results and JSON-RPC errors as failures', async () => {
    const { registry, inner, sut } = setup();
    inner.onmessage?.({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'bash' } });
    inner.onmessage?.({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'evil-unbounded-name' } });
    await sut.send({ jsonrpc: '2.0', id: 1, result: { content: [], isError: true } });
    await sut.send({ jsonrpc: '2.0', id: 2, error: { code: -32602, message: 'unknown tool' } });
    expect(await count(registry, 'server="cli-mcp-server",method="tools/call",name="bash",success="false"')).toBe(1);
    expect(await count(registry, 'server="cli-mcp-server",method="tools/call",name="unknown",success="false"')).toBe(1);
  });

  it('counts notifications on arrival and unanswered requests as failures when the transport closes', async () => {
    const { registry, inner, sut } = setup();
    let closed = false;
    sut.onclose = () => (closed = true);
    inner.onmessage?.({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 1 } });
    inner.onmessage?.({ jsonrpc: '2.0', id: 3, method: 'made/up' });
    await sut.close();
    expect(closed).toBe(true);
    expect(await count(registry, 'server="cli-mcp-server",method="notifications/cancelled",name="",success="true"')).toBe(1);
    expect(await count(registry, 'server="cli-mcp-server",method="other",name="",success="false"')).toBe(1);
  });
});
