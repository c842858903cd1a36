import type { Transport, TransportSendOptions } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage, MessageExtraInfo, RequestId } from '@modelcontextprotocol/sdk/types.js';
import type { McpMetrics } from './mcp-metrics.js';

interface Pending {
  readonly method: string;
  readonly toolName: string | undefined;
  readonly started: number;
}

/**
 * Wraps a transport to count every MCP message the server receives (Go §11: a receiving middleware): a request
 * is observed when its response leaves (or, unanswered, when the transport closes, as a failure); a
 * notification when it arrives. Decorating the transport covers the SDK's built-in handlers too (initialize,
 * ping) without touching them.
 */
export class MeteredTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage, extra?: MessageExtraInfo) => void;
  private readonly pending = new Map<RequestId, Pending>();

  constructor(
    private readonly inner: Transport,
    private readonly metrics: Pick<McpMetrics, 'observe'>,
    /** Sees the method of every request received (eager acquisition, C-MCP-13). */
    private readonly onRequest: (method: string) => void = () => undefined,
    private readonly now: () => number = () => performance.now(),
  ) {
    inner.onmessage = (message, extra) => {
      this.received(message);
      this.onmessage?.(message, extra);
    };
    inner.onclose = () => {
      for (const call of this.pending.values()) this.observe(call, false);
      this.pending.clear();
      this.onclose?.();
    };
    inner.onerror = (error) => this.onerror?.(error);
  }

  get sessionId(): string | undefined {
    return this.inner.sessionId;
  }

  setProtocolVersion(version: string): void {
    this.inner.setProtocolVersion?.(version);
  }

  start(): Promise<void> {
    return this.inner.start();
  }

  close(): Promise<void> {
    return this.inner.close();
  }

  send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    if ('id' in message && message.id !== undefined && !('method' in message)) {
      const call = this.pending.get(message.id);
      if (call) {
        this.pending.delete(message.id);
        const failed = 'error' in message || (message.result as { isError?: unknown } | undefined)?.isError === true;
        this.observe(call, !failed);
      }
    }
    return this.inner.send(message, options);
  }

  private received(message: JSONRPCMessage): void {
    if (!('method' in message)) return;
    const params = message.params as { name?: unknown } | undefined;
    const toolName = typeof params?.name === 'string' ? params.name : undefined;
    const call = { method: message.method, toolName, started: this.now() };
    if ('id' in message) {
      this.pending.set(message.id, call);
      this.onRequest(message.method);
    } else {
      this.observe(call, true);
    }
  }

  private observe(call: Pending, success: boolean): void {
    this.metrics.observe(call.method, call.toolName, success, Math.max(0, this.now() - call.started) / 1000);
  }
}
