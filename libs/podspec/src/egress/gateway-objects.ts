import type { V1ConfigMap, V1PodDisruptionBudget, V1Role, V1RoleBinding, V1Service, V1ServiceAccount } from '@kubernetes/client-node';
import { egressGatewayLabels } from '../labels.js';
import type { EgressGatewayConfig, EgressRoutesDocument } from './egress-gateway-config.js';
import { EGRESS_ADMIN_PORT, EGRESS_ADMIN_PORT_NAME, EGRESS_PROXY_PORT, EGRESS_PROXY_PORT_NAME, EGRESS_ROUTES_KEY, egressNames } from './egress-names.js';

/** The gateway's smaller objects (issue 20 item 3): Service, PDB, routes ConfigMap and its RBAC. */

type Scope = Pick<EgressGatewayConfig, 'instanceName' | 'namespace'>;

function meta(cfg: Scope, name: string) {
  return { name, namespace: cfg.namespace, labels: egressGatewayLabels(cfg.instanceName) };
}

/** ClusterIP Service `<i>-egress`: `proxy` 3128 (the sandboxes' HTTP(S)_PROXY) and `admin` 9090 (metrics). */
export function buildEgressService(cfg: Scope): V1Service {
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: meta(cfg, egressNames(cfg.instanceName).gateway),
    spec: {
      type: 'ClusterIP',
      selector: egressGatewayLabels(cfg.instanceName),
      ports: [
        { name: EGRESS_PROXY_PORT_NAME, port: EGRESS_PROXY_PORT, targetPort: EGRESS_PROXY_PORT, protocol: 'TCP' },
        { name: EGRESS_ADMIN_PORT_NAME, port: EGRESS_ADMIN_PORT, targetPort: EGRESS_ADMIN_PORT, protocol: 'TCP' },
      ],
    },
  };
}

/** A drain takes one gateway at a time: the other keeps the sandboxes' only way out open. */
export function buildEgressPodDisruptionBudget(cfg: Scope): V1PodDisruptionBudget {
  return {
    apiVersion: 'policy/v1',
    kind: 'PodDisruptionBudget',
    metadata: meta(cfg, egressNames(cfg.instanceName).gateway),
    spec: { minAvailable: 1, selector: { matchLabels: egressGatewayLabels(cfg.instanceName) } },
  };
}

/**
 * The routes ConfigMap: `routes.json` = `{"allow": [...]}`, authorities sorted and deduplicated so the same set
 * always gives the same text — and so the same config hash (no roll for a reordering).
 */
export function buildEgressRoutesConfigMap(cfg: Scope, routes: EgressRoutesDocument): V1ConfigMap {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: meta(cfg, egressNames(cfg.instanceName).routesConfigMap),
    data: { [EGRESS_ROUTES_KEY]: egressRoutesJson(routes) },
  };
}

/** The canonical text of a routes document (what the ConfigMap holds and the config hash covers). */
export function egressRoutesJson(routes: EgressRoutesDocument): string {
  return `${JSON.stringify({ allow: [...new Set(routes.allow)].sort() })}\n`;
}

export function buildEgressServiceAccount(cfg: Scope): V1ServiceAccount {
  return { apiVersion: 'v1', kind: 'ServiceAccount', metadata: meta(cfg, egressNames(cfg.instanceName).gateway), automountServiceAccountToken: true };
}

/**
 * Least privilege for the gateway: pods list/watch (an informer maps a source IP to its session), its CA Secret
 * (get; create at first start) and the sandbox ConfigMap it publishes (get, create, update). `get` and `update`
 * are limited to the two names; `create` cannot be (the API server authorizes a create before the object has a
 * name it could match), so create is namespace-wide for both kinds — the gateway's code only creates these two.
 */
export function buildEgressRole(cfg: Scope): V1Role {
  const names = egressNames(cfg.instanceName);
  return {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'Role',
    metadata: meta(cfg, names.gateway),
    rules: [
      { apiGroups: [''], resources: ['pods'], verbs: ['list', 'watch'] },
      { apiGroups: [''], resources: ['secrets'], verbs: ['get'], resourceNames: [names.caSecret] },
      { apiGroups: [''], resources: ['secrets'], verbs: ['create'] },
      { apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'update'], resourceNames: [names.sandboxConfigMap] },
      { apiGroups: [''], resources: ['configmaps'], verbs: ['create'] },
    ],
  };
}

export function buildEgressRoleBinding(cfg: Scope): V1RoleBinding {
  const name = egressNames(cfg.instanceName).gateway;
  return {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'RoleBinding',
    metadata: meta(cfg, name),
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name },
    subjects: [{ kind: 'ServiceAccount', name, namespace: cfg.namespace }],
  };
}
