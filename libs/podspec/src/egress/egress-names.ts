/**
 * The names, ports and paths the egress gateway of an instance and its sandboxes agree on (issue 20 item 3,
 * C-EGR-1). Fixed contract with `apps/egress-gateway` (`cli-mcp-egress`): the gateway publishes the CA Secret and
 * the sandbox ConfigMap under these names, and the server, the controller and the manifests render the rest. Every
 * name is `<instance>-egress…`, ≤ 59 characters for the longest instance name (44), so a valid DNS label.
 */

/** The proxy port of the gateway (Service port `proxy`, container port, the sandboxes' `HTTP(S)_PROXY`). */
export const EGRESS_PROXY_PORT = 3128;
/** The admin port of the gateway: `/healthz`, `/readyz`, `/metrics`. */
export const EGRESS_ADMIN_PORT = 9090;
export const EGRESS_PROXY_PORT_NAME = 'proxy';
export const EGRESS_ADMIN_PORT_NAME = 'admin';

/** The routes ConfigMap's key: `{"allow": ["host:port", …]}`. */
export const EGRESS_ROUTES_KEY = 'routes.json';
/** The sandbox ConfigMap's keys, published by the gateway: its CA certificate and the dummy kubeconfig. */
export const EGRESS_SANDBOX_CA_KEY = 'ca.crt';
export const EGRESS_SANDBOX_KUBECONFIG_KEY = 'kubeconfig';

/** Where the gateway container reads its routes and the real investigation kubeconfig. */
export const EGRESS_ROUTES_DIR = '/etc/cli-mcp-egress/routes';
export const EGRESS_KUBECONFIG_DIR = '/etc/cli-mcp-egress/kubeconfig';

/** Where a sandbox finds the gateway CA alone (mounted from the sandbox ConfigMap). */
export const SANDBOX_EGRESS_CA_DIR = '/etc/cli-mcp-egress';
export const SANDBOX_EGRESS_CA_FILE = `${SANDBOX_EGRESS_CA_DIR}/${EGRESS_SANDBOX_CA_KEY}`;
/** The system roots plus the gateway CA, written at pod start into a memory emptyDir (see egress-sandbox.ts). */
export const SANDBOX_CA_BUNDLE_DIR = '/run/cli-mcp-egress';
export const SANDBOX_CA_BUNDLE_FILE = `${SANDBOX_CA_BUNDLE_DIR}/ca-bundle.pem`;

/** All names of one instance's gateway. */
export interface EgressNames {
  /** Deployment, Service, PDB, ServiceAccount, Role, RoleBinding and the gateway's NetworkPolicy. */
  readonly gateway: string;
  readonly routesConfigMap: string;
  readonly caSecret: string;
  readonly sandboxConfigMap: string;
  /** The sandboxes' egress NetworkPolicy (the one the fail-closed gate requires, C-EGR-6). */
  readonly sandboxPolicy: string;
}

export function egressNames(instance: string): EgressNames {
  const gateway = `${instance}-egress`;
  return {
    gateway,
    routesConfigMap: `${gateway}-routes`,
    caSecret: `${gateway}-ca`,
    sandboxConfigMap: `${gateway}-sandbox`,
    sandboxPolicy: `${gateway}-sandbox`,
  };
}

/** The gateway Service's namespace-qualified name: the proxy's host, and the `hostAliases` name without DNS. */
export function egressProxyHost(instance: string, namespace: string): string {
  return `${egressNames(instance).gateway}.${namespace}.svc`;
}

/** The sandboxes' `HTTP(S)_PROXY`: the gateway Service by its namespace-qualified name. */
export function egressProxyUrl(instance: string, namespace: string): string {
  return `http://${egressProxyHost(instance, namespace)}:${EGRESS_PROXY_PORT}`;
}
