import {
  DEFAULT_API_SERVER,
  DEFAULT_EGRESS_REPLICAS,
  DEFAULT_EGRESS_RESOURCES,
  EGRESS_GATEWAY_COMPONENT,
  buildEgressGatewayDeployment,
  buildEgressGatewayPolicy,
  buildEgressPodDisruptionBudget,
  buildEgressRole,
  buildEgressRoleBinding,
  buildEgressRoutesConfigMap,
  buildEgressService,
  buildEgressServiceAccount,
  buildSandboxEgressPolicy,
  egressRoutesJson,
  type EgressGatewayConfig,
  type EgressRoutesDocument,
} from '@cli-mcp/podspec';
import type { ProxySpec } from '../api/climcpinstance.js';
import { CONFIG_MAPS, DEPLOYMENTS, NETWORK_POLICIES, POD_DISRUPTION_BUDGETS, ROLE_BINDINGS, ROLES, SERVICES, SERVICE_ACCOUNTS, type KubeObject, type ResourceRef } from '../kube/resources.js';
import type { ResolvedInstance } from '../spec/resolve-instance.js';
import { childLabels } from './child-names.js';
import type { DesiredChild } from './desired-child.js';
import { ownerReference, type InstanceOwner } from './owner.js';

/** The port of an allow-list domain written without one: HTTPS, what the Go system's targets mean (C-EGR-2). */
export const DEFAULT_ALLOWLIST_PORT = 443;

/** What the gateway children are rendered from besides the CR. */
export interface EgressInputs {
  readonly owner: InstanceOwner;
  /** The operator's `--egress-image` (`RELATED_IMAGE_EGRESS`); undefined = the gateway cannot be deployed. */
  readonly image: string | undefined;
  /**
   * The investigation kubeconfig Secret's identity (`uid/resourceVersion` from the Secret cache, or `absent`):
   * part of the gateway's config hash, so replacing or editing the Secret rolls the gateway, which reads it once.
   */
  readonly kubeconfigVersion: string;
}

/**
 * What `spec.proxy` asks of the instance (C-OP-3, C-EGR-1): egress only through the instance's gateway. `gateway`
 * carries the gateway's Deployment, Service, PDB, routes ConfigMap, ServiceAccount, Role, RoleBinding, its
 * NetworkPolicy and the sandboxes' egress NetworkPolicy, rendered by the same libs/podspec builders as the
 * manifests, each owned by the CR. The kubeconfig Secret is mounted only by the gateway; sandbox pods get the
 * egress pod configuration (`podConfig.egressGateway`, resolve-instance.ts). `refused` is left for an operator
 * with no egress image: its sandboxes would otherwise hold the credential (fail closed).
 */
export type EgressPlan =
  | { readonly kind: 'none' }
  | { readonly kind: 'refused'; readonly message: string }
  | { readonly kind: 'gateway'; readonly children: readonly DesiredChild[] };

export function planEgress(instance: ResolvedInstance, inputs: EgressInputs): EgressPlan {
  if (instance.proxy === undefined) return { kind: 'none' };
  if (!inputs.image) {
    return { kind: 'refused', message: 'spec.proxy needs the egress gateway image: set the operator\'s --egress-image (RELATED_IMAGE_EGRESS); the instance runs no server and no warm pool until then' };
  }
  const cfg: EgressGatewayConfig = {
    namespace: instance.podConfig.namespace,
    instanceName: instance.podConfig.instanceName,
    image: inputs.image,
    kubeconfigSecret: instance.podConfig.kubeconfigSecret,
    replicas: DEFAULT_EGRESS_REPLICAS,
    resources: DEFAULT_EGRESS_RESOURCES,
    apiServer: { cidrs: [...DEFAULT_API_SERVER.cidrs], ports: [...DEFAULT_API_SERVER.ports] },
  };
  const routes = egressRoutes(instance.proxy);
  const child = (resource: ResourceRef, built: object, owned: string[][], exact: string[][] = owned): DesiredChild => ({ resource, object: owned_(built, instance.name, inputs.owner), owned, exact });
  const spec = [['spec']];
  return {
    kind: 'gateway',
    children: [
      child(SERVICE_ACCOUNTS, buildEgressServiceAccount(cfg), [['automountServiceAccountToken']]),
      child(ROLES, buildEgressRole(cfg), [['rules']]),
      child(ROLE_BINDINGS, buildEgressRoleBinding(cfg), [['roleRef'], ['subjects']]),
      child(CONFIG_MAPS, buildEgressRoutesConfigMap(cfg, routes), [['data']]),
      child(SERVICES, buildEgressService(cfg), [['spec', 'type'], ['spec', 'selector'], ['spec', 'ports']], [['spec', 'selector']]),
      child(POD_DISRUPTION_BUDGETS, buildEgressPodDisruptionBudget(cfg), spec),
      child(NETWORK_POLICIES, buildEgressGatewayPolicy(cfg, routes), spec),
      child(NETWORK_POLICIES, buildSandboxEgressPolicy({ ...cfg, sandboxDns: instance.podConfig.sandboxDns }), spec),
      child(DEPLOYMENTS, buildEgressGatewayDeployment(cfg, { routesJson: egressRoutesJson(routes), kubeconfigVersion: inputs.kubeconfigVersion }), [['spec', 'replicas'], ['spec', 'revisionHistoryLimit'], ['spec', 'strategy'], ['spec', 'selector'], ['spec', 'template']], [['spec', 'selector']]),
    ],
  };
}

/**
 * The routes of `spec.proxy`: every `allowlist` domain as an exact `host:port` authority, `:443` when it names no
 * port (DEFAULT_ALLOWLIST_PORT). A `kubernetes` target adds no entry: the gateway routes the clusters of the
 * kubeconfig it mounts.
 */
export function egressRoutes(proxy: ProxySpec): EgressRoutesDocument {
  const allow = (proxy.targets ?? []).flatMap((target) => (target.type === 'allowlist' ? (target.domains ?? []) : [])).map(withPort);
  return { allow };
}

function withPort(domain: string): string {
  const text = domain.trim().toLowerCase();
  // `[v6]:port`, `host:port`: a port is present when the text after the last colon follows a host, not a v6 group.
  const hasPort = text.startsWith('[') ? /\]:\d+$/.test(text) : /:\d+$/.test(text);
  return hasPort ? text : `${text}:${DEFAULT_ALLOWLIST_PORT}`;
}

/** A builder's object with the operator's labels (its informers' selector) and the CR as controlling owner. */
function owned_(built: object, instance: string, owner: InstanceOwner): KubeObject {
  const object = structuredClone(built) as KubeObject;
  const metadata = object.metadata ?? {};
  object.metadata = { ...metadata, labels: { ...childLabels(instance, EGRESS_GATEWAY_COMPONENT), ...(metadata.labels ?? {}) }, ownerReferences: [ownerReference(owner)] };
  return object;
}
