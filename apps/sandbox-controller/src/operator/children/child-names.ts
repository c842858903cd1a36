import { COMPONENT_LABEL, INSTANCE_LABEL, SANDBOX_COMPONENT } from '@cli-mcp/podspec';

/**
 * Names of an instance's objects (C-OP-2, C-OP-3). The admin Secrets keep the Go operator's names, so its install
 * instructions still hold (`cli-mcp-<name>-kubeconfig` key `kubeconfig`, `cli-mcp-<name>-tls`); the rest are the
 * kustomize path's names for an instance of that name, so a team moving between the two finds the same objects.
 * With a CR name of at most 44 characters (the CRD's CEL rule) every name is a valid 63-character label.
 */
export function childNames(instance: string) {
  const base = `cli-mcp-${instance}`;
  return {
    /** Deployment, Service, ServiceAccount, Role, RoleBinding and NetworkPolicy of the MCP server. */
    server: `${base}-server`,
    /** ServiceAccount of sandbox pods (no bindings) and the sandboxes' NetworkPolicy. */
    sandboxServiceAccount: `${base}-sandbox`,
    sandboxPolicy: `${base}-sandbox`,
    /** Generated once by the operator (key `key`): derives every session token (C-AUTH-1). */
    hmacSecret: `${base}-hmac`,
    /** Generated once by the operator (key `token`): the bearer clients send on /mcp (C-MCP-8). */
    authSecret: `${base}-auth`,
    /** Admin Secret: the investigation kubeconfig (key `kubeconfig`) sandboxes mount at /config. */
    kubeconfigSecret: `${base}-kubeconfig`,
    /** Admin Secret of the Go system's TLS front (`tls.crt`/`tls.key`); see docs/operator.md "Admin Secrets". */
    tlsSecret: `${base}-tls`,
  };
}

export type ChildNames = ReturnType<typeof childNames>;

/** `app.kubernetes.io/managed-by` on every object the operator makes: the selector of its child informers. */
export const MANAGED_BY_LABEL = 'app.kubernetes.io/managed-by';
export const MANAGED_BY = 'cli-mcp-operator';
/** Component label value of the MCP server's objects (its pods included). */
export const SERVER_COMPONENT = 'server';

/** Labels of an instance's child of `component`. */
export function childLabels(instance: string, component: string): Record<string, string> {
  return {
    'app.kubernetes.io/name': 'cli-mcp-server',
    'app.kubernetes.io/part-of': 'cli-mcp',
    [MANAGED_BY_LABEL]: MANAGED_BY,
    [INSTANCE_LABEL]: instance,
    [COMPONENT_LABEL]: component,
  };
}

/** Selector labels of the server pods of `instance` (Deployment selector, Service, NetworkPolicies). */
export function serverPodLabels(instance: string): Record<string, string> {
  return { [INSTANCE_LABEL]: instance, [COMPONENT_LABEL]: SERVER_COMPONENT };
}

/** Selector labels of the sandbox pods of `instance`. */
export function sandboxPodLabels(instance: string): Record<string, string> {
  return { [INSTANCE_LABEL]: instance, [COMPONENT_LABEL]: SANDBOX_COMPONENT };
}
