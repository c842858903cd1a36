import { SingleFlight, errorText, systemClock, type Clock } from '@cli-mcp/common';
import { egressNames } from '@cli-mcp/podspec';
import type { EgressGateApi } from './egress-gate-api.port.js';
import { SERVICE_NAME_LABEL, egressGateVerdict, type EgressGateVerdict } from './egress-gate-verdict.js';

/** The longest a verdict is reused: C-EGR-6 bounds the gate's staleness at 5 s (the Go system's `proxyGateTTL`). */
export const EGRESS_GATE_MAX_TTL_MS = 5_000;

export interface EgressGateOptions {
  api: EgressGateApi;
  instance: string;
  clock?: Clock;
  /** How long a verdict is reused; capped at {@link EGRESS_GATE_MAX_TTL_MS}. */
  ttlMs?: number;
  /**
   * `--sandbox-dns none`: also read the gateway Service, whose ClusterIP the open verdict carries (the sandboxes'
   * only way to the gateway), and stay shut while it is missing or headless.
   */
  readProxyAddress?: boolean;
}

/**
 * The fail-closed egress gate (C-EGR-6), asked by the server before every claim and create and by the controller
 * before every pool refill. One check reads the gateway Service's EndpointSlices and the namespace's
 * NetworkPolicies (and with `--sandbox-dns none` the Service itself, for its ClusterIP); its verdict — open, closed, or closed because the API could not be read — is reused for up to
 * 5 s, and concurrent callers share one check (SingleFlight), so a burst of new sessions costs two requests. A
 * check the caller abandoned is not cached.
 */
export class EgressGate {
  private readonly api: EgressGateApi;
  private readonly instance: string;
  private readonly clock: Clock;
  private readonly ttlMs: number;
  private readonly readProxyAddress: boolean;
  private readonly flight = new SingleFlight<EgressGateVerdict>();
  private cached: { verdict: EgressGateVerdict; at: number } | undefined;

  constructor(options: EgressGateOptions) {
    this.api = options.api;
    this.instance = options.instance;
    this.clock = options.clock ?? systemClock;
    this.ttlMs = Math.min(options.ttlMs ?? EGRESS_GATE_MAX_TTL_MS, EGRESS_GATE_MAX_TTL_MS);
    this.readProxyAddress = options.readProxyAddress === true;
  }

  /** The latest verdict (undefined before the first check), for /health. */
  get lastVerdict(): EgressGateVerdict | undefined {
    return this.cached?.verdict;
  }

  /** The current verdict: cached when younger than the TTL, else one shared check. Rejects only when `signal` aborts. */
  check(signal: AbortSignal): Promise<EgressGateVerdict> {
    const cached = this.cached;
    if (cached !== undefined && this.clock.now() - cached.at < this.ttlMs) return Promise.resolve(cached.verdict);
    return this.flight.run('gate', signal, async (shared) => {
      const verdict = await this.read(shared);
      if (!shared.aborted) this.cached = { verdict, at: this.clock.now() };
      return verdict;
    });
  }

  private async read(signal: AbortSignal): Promise<EgressGateVerdict> {
    try {
      const gateway = egressNames(this.instance).gateway;
      const [slices, policies, service] = await Promise.all([
        this.api.listEndpointSlices(`${SERVICE_NAME_LABEL}=${gateway}`, signal),
        this.api.listNetworkPolicies(signal),
        this.readProxyAddress ? this.api.readService(gateway, signal).then((service) => service ?? ('missing' as const)) : Promise.resolve('unread' as const),
      ]);
      return egressGateVerdict(this.instance, slices, policies, service);
    } catch (error) {
      if (signal.aborted) throw error;
      return { open: false, reasons: [`the gate's conditions could not be read: ${errorText(error)}`] };
    }
  }
}
