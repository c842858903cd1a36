import { EGRESS_PROXY_PORT, egressGatewayLabels } from '@cli-mcp/podspec';
import type { GateNetworkPolicy } from './egress-gate-api.port.js';

/** DNS ports a sandbox may reach outside the gateway (cluster DNS, OpenShift's dns-default). */
const DNS_PORTS: ReadonlySet<number> = new Set([53, 5353]);

interface Peer {
  podSelector?: { matchLabels?: Record<string, string>; matchExpressions?: unknown[] };
  namespaceSelector?: unknown;
  ipBlock?: unknown;
}
interface Rule {
  to?: Peer[];
  ports?: Array<{ port?: number | string; endPort?: number }>;
}

/**
 * Why the sandbox NetworkPolicy itself would let a sandbox past the gateway, or undefined (C-EGR-6). Editing the
 * gate's own policy must not re-open egress unnoticed, but an operator may adapt its DNS rule (NodeLocal DNS,
 * another DNS namespace), so the check is by meaning, not by equality with the built policy. Each egress rule must
 * name its destinations (a rule without `to` allows every address) and no `ipBlock`; a peer in this namespace
 * (no namespaceSelector) must select exactly the instance's gateway pods, on the proxy port only; a peer in other
 * namespaces must be reached on DNS ports only.
 */
export function sandboxPolicyProblem(policy: GateNetworkPolicy, instance: string): string | undefined {
  const gateway = egressGatewayLabels(instance);
  for (const rule of (policy.spec?.egress ?? []) as Rule[]) {
    const peers = rule.to ?? [];
    if (peers.length === 0) return 'has an egress rule without destinations (allows every address)';
    const ports = (rule.ports ?? []).map((p) => p.port);
    if (ports.length === 0 || rule.ports!.some((p) => p.endPort !== undefined)) return 'has an egress rule without fixed ports';
    for (const peer of peers) {
      if (peer.ipBlock !== undefined) return 'allows egress to an ipBlock';
      if (peer.namespaceSelector === undefined) {
        const labels = peer.podSelector?.matchLabels ?? {};
        const exact = (peer.podSelector?.matchExpressions ?? []).length === 0 && Object.keys(labels).length === Object.keys(gateway).length && Object.entries(gateway).every(([k, v]) => labels[k] === v);
        if (!exact || ports.some((port) => port !== EGRESS_PROXY_PORT)) return 'allows egress to pods other than the gateway\'s proxy port';
      } else if (ports.some((port) => typeof port !== 'number' || !DNS_PORTS.has(port))) {
        return 'allows egress to other namespaces beyond DNS';
      }
    }
  }
  return undefined;
}
