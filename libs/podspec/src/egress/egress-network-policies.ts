import type { V1LabelSelector, V1NetworkPolicyPort, V1ObjectMeta } from '@kubernetes/client-node';
import { egressGatewayLabels, sandboxLabels } from '../labels.js';
import type { SandboxDns } from '../sandbox-config.js';
import type { EgressGatewayConfig, EgressRoutesDocument } from './egress-gateway-config.js';
import { EGRESS_ADMIN_PORT, EGRESS_PROXY_PORT, egressNames } from './egress-names.js';

/**
 * The NetworkPolicies that make the gateway mandatory (issue 20 item 3, C-EGR-1). NetworkPolicies are additive
 * (a pod may send what ANY policy selecting it allows), which is why the fail-closed gate (libs/kube
 * egress-gate) also refuses when another policy selecting the sandboxes grants egress (C-EGR-6).
 */

type Scope = Pick<EgressGatewayConfig, 'instanceName' | 'namespace'>;

/**
 * A NetworkPolicy as it goes over the wire. Not client-node's `V1NetworkPolicy`, whose model names the peer list
 * `_from` (its serializer renames it); these objects are written as JSON and YAML directly.
 */
export interface NetworkPolicyPeer {
  podSelector?: V1LabelSelector;
  namespaceSelector?: V1LabelSelector;
  ipBlock?: { cidr: string; except?: string[] };
}
export interface NetworkPolicyEgressRule {
  to?: NetworkPolicyPeer[];
  ports?: V1NetworkPolicyPort[];
}
export interface NetworkPolicyIngressRule {
  from?: NetworkPolicyPeer[];
  ports?: V1NetworkPolicyPort[];
}
export interface NetworkPolicyManifest {
  apiVersion: 'networking.k8s.io/v1';
  kind: 'NetworkPolicy';
  metadata: V1ObjectMeta;
  spec: { podSelector: V1LabelSelector; policyTypes?: string[]; ingress?: NetworkPolicyIngressRule[]; egress?: NetworkPolicyEgressRule[] };
}

/**
 * Cluster DNS: kube-dns pods in any namespace, or OpenShift's dns-default (5353), as the other policies of this
 * repo name it. The gateway resolves route names with it; sandboxes only with `--sandbox-dns cluster`
 * (docs/egress.md "DNS").
 */
export function clusterDnsRule(): NetworkPolicyEgressRule {
  return {
    to: [
      { namespaceSelector: {}, podSelector: { matchLabels: { 'k8s-app': 'kube-dns' } } },
      { namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'openshift-dns' } } },
    ],
    ports: [53, 5353].flatMap((port) => tcpUdp(port)),
  };
}

/**
 * (a) Sandboxes of the instance may send only to the gateway pods on the proxy port, and — with
 * `--sandbox-dns cluster` alone — to cluster DNS. By default (`none`) they have no resolver and reach the gateway
 * by its ClusterIP (a `hostAliases` entry, egress-sandbox.ts), so the policy grants nothing else.
 */
export function buildSandboxEgressPolicy(cfg: Scope & { sandboxDns?: SandboxDns | undefined }): NetworkPolicyManifest {
  return {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'NetworkPolicy',
    metadata: { name: egressNames(cfg.instanceName).sandboxPolicy, namespace: cfg.namespace, labels: egressGatewayLabels(cfg.instanceName) },
    spec: {
      podSelector: { matchLabels: sandboxLabels(cfg.instanceName) },
      policyTypes: ['Egress'],
      egress: [
        { to: [{ podSelector: { matchLabels: egressGatewayLabels(cfg.instanceName) } }], ports: [{ protocol: 'TCP', port: EGRESS_PROXY_PORT }] },
        ...(cfg.sandboxDns === 'cluster' ? [clusterDnsRule()] : []),
      ],
    },
  };
}

/**
 * (b) + (c) The gateway's own policy. Ingress: the proxy port from this instance's sandboxes only (another
 * instance's sandboxes, or any other pod, cannot borrow its credential); the admin port from anywhere — the
 * kubelet's probes come from the node, which NetworkPolicies do not govern on common CNIs, and a Prometheus in
 * another namespace scrapes it (it serves no credential). Egress: DNS (the gateway resolves route names itself,
 * C-EGR-3), the API server (its informer and Secrets, and the Kubernetes routes), and the allow-listed routes'
 * ports to any address — hosts are enforced at L7 and resolved addresses checked; a policy cannot name a host.
 */
export function buildEgressGatewayPolicy(cfg: Pick<EgressGatewayConfig, 'instanceName' | 'namespace' | 'apiServer'>, routes: EgressRoutesDocument): NetworkPolicyManifest {
  const egress: NetworkPolicyEgressRule[] = [
    clusterDnsRule(),
    { to: cfg.apiServer.cidrs.map((cidr) => ({ ipBlock: { cidr } })), ports: cfg.apiServer.ports.map((port) => tcp(port)) },
  ];
  const routePorts = routeAuthorityPorts(routes);
  if (routePorts.length > 0) egress.push({ to: [{ ipBlock: { cidr: '0.0.0.0/0' } }, { ipBlock: { cidr: '::/0' } }], ports: routePorts.map((port) => tcp(port)) });
  return {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'NetworkPolicy',
    metadata: { name: egressNames(cfg.instanceName).gateway, namespace: cfg.namespace, labels: egressGatewayLabels(cfg.instanceName) },
    spec: {
      podSelector: { matchLabels: egressGatewayLabels(cfg.instanceName) },
      policyTypes: ['Ingress', 'Egress'],
      ingress: [
        { from: [{ podSelector: { matchLabels: sandboxLabels(cfg.instanceName) } }], ports: [tcp(EGRESS_PROXY_PORT)] },
        { ports: [tcp(EGRESS_ADMIN_PORT)] },
      ],
      egress,
    },
  };
}

/** The distinct ports of `host:port` / `[v6]:port` authorities, ascending. */
export function routeAuthorityPorts(routes: EgressRoutesDocument): number[] {
  const ports = new Set<number>();
  for (const authority of routes.allow) {
    const port = Number(authority.slice(authority.lastIndexOf(':') + 1));
    if (Number.isInteger(port) && port > 0 && port < 65536) ports.add(port);
  }
  return [...ports].sort((a, b) => a - b);
}

function tcp(port: number): V1NetworkPolicyPort {
  return { protocol: 'TCP', port };
}

function tcpUdp(port: number): V1NetworkPolicyPort[] {
  return [{ protocol: 'UDP', port }, { protocol: 'TCP', port }];
}
