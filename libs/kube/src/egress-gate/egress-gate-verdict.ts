import { egressNames, sandboxLabels } from '@cli-mcp/podspec';
import type { GateEndpointSlice, GateNetworkPolicy, GateService } from './egress-gate-api.port.js';
import { sandboxPolicyProblem } from './sandbox-policy-check.js';
import { maySelectSandbox } from './sandbox-selection.js';

/**
 * The gate's answer: open, or closed with every missing condition named (C-EGR-6). Open, it carries the gateway
 * Service's ClusterIP when the gate was asked for it (`--sandbox-dns none`: the pods' `hostAliases` entry).
 */
export type EgressGateVerdict = { readonly open: true; readonly proxyAddress?: string } | { readonly open: false; readonly reasons: readonly string[] };

/**
 * The Service read with `--sandbox-dns none`: `'unread'` when the gate does not need it, `'missing'` on a 404.
 * A sandbox without a resolver reaches the gateway only at this address, so a missing or headless Service shuts
 * the gate like missing endpoints do.
 */
export type GateServiceRead = GateService | 'missing' | 'unread';

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
export function egressGateVerdict(instance: string, slices: readonly GateEndpointSlice[], policies: readonly GateNetworkPolicy[], service: GateServiceRead = 'unread'): EgressGateVerdict {
  const names = egressNames(instance);
  const reasons: string[] = [];
  const proxyAddress = service === 'unread' || service === 'missing' ? undefined : clusterIp(service);
  if (service === 'missing') reasons.push(`Service ${names.gateway} is missing`);
  else if (service !== 'unread' && proxyAddress === undefined) reasons.push(`Service ${names.gateway} has no ClusterIP (sandboxes without DNS reach the gateway by it)`);
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
  if (reasons.length > 0) return { open: false, reasons };
  return proxyAddress === undefined ? { open: true } : { open: true, proxyAddress };
}

/** A ClusterIP a pod can be given in `hostAliases`: not unset, not `None` (headless). */
function clusterIp(service: GateService): string | undefined {
  const ip = service.spec?.clusterIP;
  return ip === undefined || ip === '' || ip === 'None' ? undefined : ip;
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
