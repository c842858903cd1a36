import { Injectable } from '@nestjs/common';
import { collectDefaultMetrics, Registry } from 'prom-client';
import { McpMetrics } from './mcp-metrics.js';

/**
 * The app's own Prometheus registry (C-HTTP-3: never the global one, so several apps — tests — can coexist in
 * one process). libs/session registers its metrics on the same registry.
 */
@Injectable()
export class MetricsService {
  readonly registry = new Registry();
  readonly mcp: McpMetrics;

  constructor() {
    collectDefaultMetrics({ register: this.registry });
    this.mcp = new McpMetrics(this.registry);
  }

  get contentType(): string {
    return this.registry.contentType;
  }

  render(): Promise<string> {
    return this.registry.metrics();
  }
}
