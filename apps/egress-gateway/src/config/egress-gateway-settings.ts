import { Flag, FlagGroup, IntegerRange, StandardSettings } from '@cli-mcp/common';

export const EGRESS_GATEWAY_GROUP = 'Egress gateway';

/**
 * The flags of `cli-mcp-egress` (issue 20 item 3), declared once (C-CFG-1). Namespace, instance and the process's
 * own API access are the shared `KubeAccessSettings` (libs/kube), not repeated here. The required ones are
 * checked by the loader, which also reads the files they name (a bad entry is a start-up problem naming the file).
 */
@FlagGroup(EGRESS_GATEWAY_GROUP)
export class EgressGatewaySettings extends StandardSettings {
  @Flag('proxy-port', { type: 'integer', valueName: 'port', default: '3128', description: 'TCP port of the proxy sandboxes use (all interfaces); a connection is attributed to the session of its source pod IP.' })
  @IntegerRange(0, 65_535)
  proxyPort!: number;

  @Flag('admin-port', { type: 'integer', valueName: 'port', default: '9090', description: 'TCP port of /healthz, /readyz and /metrics (all interfaces).' })
  @IntegerRange(0, 65_535)
  adminPort!: number;

  @Flag('routes-file', { valueName: 'path', description: 'JSON {"allow": ["host:port", …]}: the hosts sandboxes may reach, exact, as --egress-allow (required).' })
  routesFile?: string;

  @Flag('kubeconfig-file', { valueName: 'path', description: 'The investigation kubeconfig: its clusters become Kubernetes routes with its credentials injected (not this process\'s own API access: that is --kubeconfig).' })
  kubeconfigFile?: string;

  @Flag('ca-secret', { valueName: 'name', description: 'kubernetes.io/tls Secret holding the runtime CA every replica shares; created with a new CA when absent (required).' })
  caSecret?: string;

  @Flag('sandbox-configmap', { valueName: 'name', description: 'ConfigMap this gateway publishes for sandboxes: ca.crt (the CA certificate only) and kubeconfig (the dummy one) (required).' })
  sandboxConfigMap?: string;

  @Flag('sandbox-proxy-url', { valueName: 'url', description: 'http:// URL sandboxes reach this proxy at, e.g. http://<instance>-egress.<namespace>.svc:3128: the dummy kubeconfig\'s proxy-url (required).' })
  sandboxProxyUrl?: string;
}
