import { NETWORK_POLICIES, ROLE_BINDINGS, ROLES, SERVICE_ACCOUNTS, SERVICES, apiVersionOf, type KubeObject, type ResourceRef } from '../kube/resources.js';
import type { ResolvedInstance } from '../spec/resolve-instance.js';
import { childLabels, childNames, sandboxPodLabels, serverPodLabels, SERVER_COMPONENT } from './child-names.js';
import type { DesiredChild } from './desired-child.js';
import { ownerReference, type InstanceOwner } from './owner.js';
import { SERVER_PORT } from './server-args.js';
import { SANDBOX_COMPONENT, clusterDnsRule, egressNames, sandboxWithoutDns } from '@cli-mcp/podspec';

/**
 * The instance's Service, ServiceAccounts, Role, RoleBinding and NetworkPolicies (C-OP-3), as the kustomize path
 * has them for one instance (deploy/base): the server's Role is exactly C-K8S-10 (no Lease read: under the
 * operator there is no per-instance controller Lease to report); the sandbox ServiceAccount has no bindings and
 * mounts no token; sandboxes accept traffic only from this instance's server pods on the agent port and may
 * reach DNS and the Kubernetes API (their kubeconfig's target) — nothing else; with spec.proxy, nothing at all
 * (the egress gateway's sandbox policy, children/egress.ts, allows the gateway and DNS).
 */
/** OpenShift's service CA: the Secret it writes the Service's serving certificate to. */
export const SERVING_CERT_ANNOTATION = 'service.beta.openshift.io/serving-cert-secret-name';

export function accessChildren(instance: ResolvedInstance, owner: InstanceOwner): DesiredChild[] {
  const names = childNames(instance.name);
  const namespace = instance.podConfig.namespace;
  const meta = (name: string, component: string) => ({ name, namespace, labels: childLabels(instance.name, component), ownerReferences: [ownerReference(owner)] });
  const child = (resource: ResourceRef, name: string, component: string, body: Record<string, unknown>, owned: string[][], exact: string[][] = owned): DesiredChild => ({
    resource,
    object: { apiVersion: apiVersionOf(resource), kind: resource.kind, metadata: meta(name, component), ...body } as KubeObject,
    owned,
    exact,
  });
  const gateway = instance.podConfig.egressGateway === true;
  const servers = { podSelector: { matchLabels: serverPodLabels(instance.name) } };
  return [
    child(SERVICE_ACCOUNTS, names.server, SERVER_COMPONENT, { automountServiceAccountToken: true }, [['automountServiceAccountToken']]),
    child(SERVICE_ACCOUNTS, names.sandboxServiceAccount, SANDBOX_COMPONENT, { automountServiceAccountToken: false }, [['automountServiceAccountToken']]),
    child(ROLES, names.server, SERVER_COMPONENT, {
      rules: [
        { apiGroups: [''], resources: ['pods'], verbs: ['get', 'list', 'watch', 'create', 'patch', 'delete'] },
        { apiGroups: [''], resources: ['secrets'], verbs: ['create', 'delete'] },
        // spec.proxy: the server's egress gate reads these before every claim and create (C-EGR-6). Reads only.
        ...(gateway ? [{ apiGroups: ['discovery.k8s.io'], resources: ['endpointslices'], verbs: ['list'] }, { apiGroups: ['networking.k8s.io'], resources: ['networkpolicies'], verbs: ['list'] }] : []),
        // Without DNS (spec.proxy.sandboxDns none) the gate also reads the gateway Service, for its ClusterIP (C-EGR-1).
        ...(sandboxWithoutDns(instance.podConfig) ? [{ apiGroups: [''], resources: ['services'], resourceNames: [egressNames(instance.name).gateway], verbs: ['get'] }] : []),
      ],
    }, [['rules']]),
    child(ROLE_BINDINGS, names.server, SERVER_COMPONENT, {
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: names.server },
      subjects: [{ kind: 'ServiceAccount', name: names.server, namespace }],
    }, [['roleRef'], ['subjects']]),
    child(SERVICES, names.server, SERVER_COMPONENT, {
      // OpenShift's service CA fills cli-mcp-<name>-tls from this annotation, and the server then serves HTTPS; on
      // plain Kubernetes the admin (or cert-manager) creates that Secret (docs/operator.md "Admin Secrets").
      metadata: { ...meta(names.server, SERVER_COMPONENT), annotations: { [SERVING_CERT_ANNOTATION]: names.tlsSecret } },
      spec: { type: 'ClusterIP', selector: serverPodLabels(instance.name), ports: [{ name: 'http', port: SERVER_PORT, targetPort: 'http', protocol: 'TCP' }] },
    }, [['spec', 'type'], ['spec', 'selector'], ['spec', 'ports']], [['spec', 'selector']]),
    child(NETWORK_POLICIES, names.sandboxPolicy, SANDBOX_COMPONENT, {
      spec: {
        podSelector: { matchLabels: sandboxPodLabels(instance.name) },
        policyTypes: ['Ingress', 'Egress'],
        ingress: [{ from: [servers], ports: [{ protocol: 'TCP', port: instance.podConfig.agentPort }] }],
        // spec.proxy: no egress here — the gateway's `<name>-egress-sandbox` policy is the sandboxes' only way out,
        // and the fail-closed gate refuses while any other policy selecting them grants egress (C-EGR-6).
        egress: gateway ? [] : [clusterDnsRule(), { to: [{ ipBlock: { cidr: '0.0.0.0/0' } }], ports: [{ protocol: 'TCP', port: 443 }, { protocol: 'TCP', port: 6443 }] }],
      },
    }, [['spec']]),
    child(NETWORK_POLICIES, names.server, SERVER_COMPONENT, {
      spec: { podSelector: servers.podSelector, policyTypes: ['Ingress'], ingress: [{ ports: [{ protocol: 'TCP', port: SERVER_PORT }] }] },
    }, [['spec']]),
  ];
}
