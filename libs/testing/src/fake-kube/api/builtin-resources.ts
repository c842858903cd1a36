import { CUSTOM_RESOURCE_DEFINITIONS } from './crd/crd-definitions.js';
import { builtinResource, fieldPath, LEASES, META_FIELDS, PODS, SECRETS, type ResourceDefinition } from './resources.js';
import { configMapRules, eventRules, networkPolicyRules, roleBindingRules, roleRules } from './rules/policy-rules.js';
import { ClusterIpAllocator, endpointSliceRules, serviceRules } from './rules/service-rules.js';
import { deploymentRules, pdbRules } from './rules/workload-rules.js';

const NO_RULES = {};

export const DEPLOYMENTS = builtinResource({
  plural: 'deployments', singular: 'deployment', kind: 'Deployment', group: 'apps',
  shortNames: ['deploy'], categories: ['all'], hasStatus: true, tracksGeneration: true, rules: deploymentRules,
});
export const SERVICE_ACCOUNTS = builtinResource({ plural: 'serviceaccounts', singular: 'serviceaccount', kind: 'ServiceAccount', group: '', shortNames: ['sa'], rules: NO_RULES });
export const CONFIG_MAPS = builtinResource({ plural: 'configmaps', singular: 'configmap', kind: 'ConfigMap', group: '', shortNames: ['cm'], rules: configMapRules });
export const ROLES = builtinResource({ plural: 'roles', singular: 'role', kind: 'Role', group: 'rbac.authorization.k8s.io', rules: roleRules });
export const ROLE_BINDINGS = builtinResource({ plural: 'rolebindings', singular: 'rolebinding', kind: 'RoleBinding', group: 'rbac.authorization.k8s.io', rules: roleBindingRules });
export const NETWORK_POLICIES = builtinResource({
  plural: 'networkpolicies', singular: 'networkpolicy', kind: 'NetworkPolicy', group: 'networking.k8s.io', shortNames: ['netpol'], tracksGeneration: true, rules: networkPolicyRules,
});
export const ENDPOINT_SLICES = builtinResource({ plural: 'endpointslices', singular: 'endpointslice', kind: 'EndpointSlice', group: 'discovery.k8s.io', rules: endpointSliceRules });
export const POD_DISRUPTION_BUDGETS = builtinResource({
  plural: 'poddisruptionbudgets', singular: 'poddisruptionbudget', kind: 'PodDisruptionBudget', group: 'policy', shortNames: ['pdb'], hasStatus: true, tracksGeneration: true, rules: pdbRules,
});
export const EVENTS = builtinResource({
  plural: 'events', singular: 'event', kind: 'Event', group: '', shortNames: ['ev'], rules: eventRules,
  // The fields the real server indexes for core Events (kubectl describe selects on involvedObject.*).
  fields: {
    ...META_FIELDS,
    ...Object.fromEntries(['kind', 'namespace', 'name', 'uid', 'apiVersion', 'resourceVersion', 'fieldPath'].map((f) => [`involvedObject.${f}`, (o: Record<string, unknown>) => fieldPath(o, 'involvedObject', f)])),
    reason: (o) => fieldPath(o, 'reason'),
    reportingComponent: (o) => fieldPath(o, 'reportingComponent'),
    source: (o) => fieldPath(o, 'source', 'component'),
    type: (o) => fieldPath(o, 'type'),
  },
});

/** Every built-in kind the fake serves; Services get a cluster-IP allocator of their own per server. */
export function builtinResources(): ResourceDefinition[] {
  const services = builtinResource({
    plural: 'services', singular: 'service', kind: 'Service', group: '', shortNames: ['svc'], categories: ['all'], hasStatus: true, rules: serviceRules(new ClusterIpAllocator()),
  });
  return [
    PODS, SECRETS, CONFIG_MAPS, SERVICE_ACCOUNTS, services, EVENTS, LEASES, DEPLOYMENTS, ROLES, ROLE_BINDINGS,
    NETWORK_POLICIES, ENDPOINT_SLICES, POD_DISRUPTION_BUDGETS, CUSTOM_RESOURCE_DEFINITIONS,
  ];
}
