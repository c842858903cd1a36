import type { KubernetesObject } from '@kubernetes/client-node';
import type { KubeResource } from '@cli-mcp/kube';
import { CLIMCP_GROUP, CLIMCP_KIND, CLIMCP_PLURAL, CLIMCP_VERSION } from '../api/climcpinstance.js';

/** A namespaced resource the operator reads or writes: where it lives in the API, and its metric label. */
export interface ResourceRef {
  /** `''` for the core group. */
  readonly group: string;
  readonly version: string;
  readonly plural: KubeResource;
  readonly kind: string;
}

/** Any object as JSON (the operator never needs client-node's typed models for its children). */
export interface KubeObject extends KubernetesObject {
  [key: string]: unknown;
}

export const PODS: ResourceRef = { group: '', version: 'v1', plural: 'pods', kind: 'Pod' };
export const SECRETS: ResourceRef = { group: '', version: 'v1', plural: 'secrets', kind: 'Secret' };
export const SERVICES: ResourceRef = { group: '', version: 'v1', plural: 'services', kind: 'Service' };
export const SERVICE_ACCOUNTS: ResourceRef = { group: '', version: 'v1', plural: 'serviceaccounts', kind: 'ServiceAccount' };
export const EVENTS: ResourceRef = { group: '', version: 'v1', plural: 'events', kind: 'Event' };
export const DEPLOYMENTS: ResourceRef = { group: 'apps', version: 'v1', plural: 'deployments', kind: 'Deployment' };
export const ROLES: ResourceRef = { group: 'rbac.authorization.k8s.io', version: 'v1', plural: 'roles', kind: 'Role' };
export const ROLE_BINDINGS: ResourceRef = { group: 'rbac.authorization.k8s.io', version: 'v1', plural: 'rolebindings', kind: 'RoleBinding' };
export const CONFIG_MAPS: ResourceRef = { group: '', version: 'v1', plural: 'configmaps', kind: 'ConfigMap' };
export const POD_DISRUPTION_BUDGETS: ResourceRef = { group: 'policy', version: 'v1', plural: 'poddisruptionbudgets', kind: 'PodDisruptionBudget' };
/** Read only: the egress gateway Service's endpoints (Ready of a `spec.proxy` instance, C-EGR-6). */
export const ENDPOINT_SLICES: ResourceRef = { group: 'discovery.k8s.io', version: 'v1', plural: 'endpointslices', kind: 'EndpointSlice' };
export const NETWORK_POLICIES: ResourceRef = { group: 'networking.k8s.io', version: 'v1', plural: 'networkpolicies', kind: 'NetworkPolicy' };
export const CLIMCP_INSTANCES: ResourceRef = { group: CLIMCP_GROUP, version: CLIMCP_VERSION, plural: CLIMCP_PLURAL, kind: CLIMCP_KIND };

/** The kinds of children the operator renders (each watched by one informer on the managed-by label). */
export const CHILD_RESOURCES: readonly ResourceRef[] = [DEPLOYMENTS, SERVICES, SERVICE_ACCOUNTS, ROLES, ROLE_BINDINGS, NETWORK_POLICIES, CONFIG_MAPS, POD_DISRUPTION_BUDGETS];

export function apiVersionOf(resource: ResourceRef): string {
  return resource.group === '' ? resource.version : `${resource.group}/${resource.version}`;
}

/** The namespaced collection path (`/api/v1/namespaces/ns/pods`, `/apis/apps/v1/namespaces/ns/deployments`). */
export function collectionPath(resource: ResourceRef, namespace: string): string {
  const prefix = resource.group === '' ? `/api/${resource.version}` : `/apis/${resource.group}/${resource.version}`;
  return `${prefix}/namespaces/${encodeURIComponent(namespace)}/${resource.plural}`;
}
