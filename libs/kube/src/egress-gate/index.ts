export type { EgressGateApi, GateEndpointSlice, GateLabelSelector, GateNetworkPolicy, GateService } from './egress-gate-api.port.js';
export { maySelectSandbox } from './sandbox-selection.js';
export { SERVICE_NAME_LABEL, closedGateText, egressGateVerdict, type EgressGateVerdict, type GateServiceRead } from './egress-gate-verdict.js';
export { EGRESS_GATE_MAX_TTL_MS, EgressGate, type EgressGateOptions } from './egress-gate.js';
