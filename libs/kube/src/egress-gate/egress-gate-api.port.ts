/**
 * The reads the fail-closed egress gate makes (C-EGR-6), in the one namespace of the instance. Shapes are the
 * API's JSON, narrowed to what the gate reads (client-node's `V1EndpointSlice` and `V1NetworkPolicy` fit them).
 * Failures reject with `KubeError`; an aborted `signal` rejects with its reason.
 */
export interface EgressGateApi {
  /** `GET /apis/discovery.k8s.io/v1/namespaces/<ns>/endpointslices?labelSelector=…`. */
  listEndpointSlices(labelSelector: string, signal: AbortSignal): Promise<GateEndpointSlice[]>;
  /** `GET /apis/networking.k8s.io/v1/namespaces/<ns>/networkpolicies`. */
  listNetworkPolicies(signal: AbortSignal): Promise<GateNetworkPolicy[]>;
  /** `GET /api/v1/namespaces/<ns>/services/<name>`; undefined when there is none (404). */
  readService(name: string, signal: AbortSignal): Promise<GateService | undefined>;
}

export interface GateService {
  spec?: { clusterIP?: string };
}

export interface GateEndpointSlice {
  endpoints?: Array<{ addresses?: string[]; conditions?: { ready?: boolean } }>;
}

export interface GateLabelSelector {
  matchLabels?: Record<string, string>;
  matchExpressions?: Array<{ key: string; operator: string; values?: string[] }>;
}

export interface GateNetworkPolicy {
  metadata?: { name?: string };
  spec?: { podSelector?: GateLabelSelector; policyTypes?: string[]; egress?: unknown[] };
}
