import { egressNames, sandboxLabels } from '@cli-mcp/podspec';
import type { GateEndpointSlice, GateNetworkPolicy } from './egress-gate-api.port.js';
import { sandboxPolicyProblem } from './sandbox-policy-check.js';
import { maySelectSandbox } from './sandbox-selection.js';

/** The gate's answer: open, or closed with every missing condition named (C-EGR-6). */
export type EgressGateVerdict = { readonly open: true } | { readonly open: false; readonly reasons: readonly string[] };

/** The label EndpointSlices carry naming their Service. */
export const SERVICE_NAME_LABEL = 'kubernetes.io/service-name';

/**
 * The three conditions of C-EGR-6, from one read of each kind:
 * 1. the gateway Service `<i>-egress` has a ready endpoint (an address whose `ready` is true or unset, as the
 *    EndpointSlice API defines it);
 * 2. the sandbox NetworkPolicy `<i>-egress-sandbox` exists, its `policyTypes` include Egress, and its own rules
 *    reach only the gateway's proxy port and DNS (`sandboxPolicyProblem`);
 * 3. no OTHER NetworkPolicy that may select the sandbox pods grants egress — policies are additive, so one more
 *    policy with any egress rule re-opens the way the gateway was to close (the Go system's gap G4).
 */
export function egressGateVerdict(instance: string, slices: readonly GateEndpointSlice[], policies: readonly GateNetworkPolicy[]): EgressGateVerdict {
  const names = egressNames(instance);
  const reasons: string[] = [];
  const ready = slices.some((slice) => (slice.endpoints ?? []).some((e) => (e.addresses ?? []).length > 0 && e.conditions?.ready !== false));
  if (!ready) reasons.push(`Service ${names.gateway} has no ready endpoints`);
  const own = policies.find((p) => p.metadata?.name === names.sandboxPolicy);
  if (own === undefined) reasons.push(`NetworkPolicy ${names.sandboxPolicy} is missing`);
  else if (!(own.spec?.policyTypes ?? []).includes('Egress')) reasons.push(`NetworkPolicy ${names.sandboxPolicy} does not restrict Egress`);
  else {
    const problem = sandboxPolicyProblem(own, instance);
    if (problem !== undefined) reasons.push(`NetworkPolicy ${names.sandboxPolicy} ${problem}`);
  }
  const labels = sandboxLabels(instance);
  for (const policy of policies) {
    if (policy === own || !grantsEgress(policy) || !maySelectSandbox(policy.spec?.podSelector, labels)) continue;
    reasons.push(`NetworkPolicy ${policy.metadata?.name ?? '(unnamed)'} also selects sandbox pods and allows egress`);
  }
  return reasons.length === 0 ? { open: true } : { open: false, reasons };
}

/** A policy with any egress rule; `policyTypes` unset means Egress exactly when it has egress rules (API default). */
function grantsEgress(policy: GateNetworkPolicy): boolean {
  const rules = policy.spec?.egress ?? [];
  const types = policy.spec?.policyTypes;
  return rules.length > 0 && (types === undefined || types.includes('Egress'));
}

/** The text a closed gate is refused with, naming every missing condition. */
export function closedGateText(verdict: Extract<EgressGateVerdict, { open: false }>): string {
  return `egress gateway not enforced: ${verdict.reasons.join('; ')}`;
}
