import { Counter, Histogram, type Registry } from 'prom-client';

export const SERVER_NAME = 'cli-mcp-server';

/** Methods kept as label values; anything else is `other`, so a client cannot grow the label set (§9). */
const KNOWN_METHODS = new Set([
  'initialize',
  'server/discover',
  'ping',
  'tools/list',
  'tools/call',
  'logging/setLevel',
  'notifications/initialized',
  'notifications/cancelled',
  'notifications/progress',
  'notifications/roots/list_changed',
]);

type Labels = 'server' | 'method' | 'name' | 'success';

/**
 * The Go server's MCP metrics (Go §11) on the app's own registry: `mcp_calls_total` and
 * `mcp_call_duration_seconds{server,method,name,success}`, with Go's buckets. `success` is false for JSON-RPC
 * errors and for tool results with `isError` (non-zero exits and tool errors), as in Go.
 */
export class McpMetrics {
  private readonly calls: Counter<Labels>;
  private readonly duration: Histogram<Labels>;

  constructor(registry: Registry) {
    const registers = [registry];
    const labelNames: Labels[] = ['server', 'method', 'name', 'success'];
    this.calls = new Counter({ name: 'mcp_calls_total', help: 'Total number of MCP calls', labelNames, registers });
    this.duration = new Histogram({
      name: 'mcp_call_duration_seconds',
      help: 'Duration of MCP calls in seconds',
      labelNames,
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers,
    });
  }

  observe(method: string, toolName: string | undefined, success: boolean, seconds: number): void {
    const labels = { server: SERVER_NAME, method: boundedMethod(method), name: boundedToolName(method, toolName), success: String(success) };
    this.calls.inc(labels);
    this.duration.observe(labels, seconds);
  }
}

function boundedMethod(method: string): string {
  return KNOWN_METHODS.has(method) ? method : 'other';
}

function boundedToolName(method: string, name: string | undefined): string {
  if (method !== 'tools/call') return '';
  return name === 'bash' ? 'bash' : 'unknown';
}
