import { Counter, Histogram, type Registry } from 'prom-client';
import type { RouteLabel } from './routes.js';

export const EGRESS_METRIC_NAMES = {
  requests: 'cli_mcp_egress_requests_total',
  seconds: 'cli_mcp_egress_request_seconds',
} as const;

/** The metrics port of the gateway (C-EGR-7): labels are the decision and the route kind only. */
export interface EgressMetrics {
  record(decision: 'allow' | 'deny', route: RouteLabel, seconds: number): void;
}

export const noMetrics: EgressMetrics = { record: () => undefined };

const BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

/** prom-client metrics on the app's own registry (C-HTTP-3: never the global one); one per registry. */
export class PromEgressMetrics implements EgressMetrics {
  private readonly requests: Counter<'decision' | 'route'>;
  private readonly seconds: Histogram<'decision' | 'route'>;

  constructor(registry: Registry) {
    const registers = [registry];
    const labelNames = ['decision', 'route'] as const;
    this.requests = new Counter({ name: EGRESS_METRIC_NAMES.requests, help: 'Egress gateway decisions by decision and route kind', labelNames, registers });
    this.seconds = new Histogram({
      name: EGRESS_METRIC_NAMES.seconds, help: 'Time from a request reaching the egress gateway to its response headers (or refusal)',
      labelNames, buckets: BUCKETS, registers,
    });
  }

  record(decision: 'allow' | 'deny', route: RouteLabel, seconds: number): void {
    this.requests.inc({ decision, route });
    this.seconds.observe({ decision, route }, seconds);
  }
}
