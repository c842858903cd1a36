import { NETWORK_POLICIES, ROLE_BINDINGS, ROLES, SERVICE_ACCOUNTS, SERVICES, apiVersionOf, type KubeObject, type ResourceRef } from '../kube/resources.js';
import type { ResolvedInstance } from '../spec/resolve-instance.js';
import { childLabels, childNames, sandboxPodLabels, serverPodLabels, SERVER_COMPONENT } from './child-names.js';
import type { DesiredChild } from './desired-child.js';
import { ownerReference, type InstanceOwner } from './owner.js';
import { SERVER_PORT } from './server-args.js';
import { SANDBOX_COMPONENT } from '@cli-mcp/podspec';

/**
 * The instance's Service, ServiceAccounts, Role, RoleBinding and NetworkPolicies (C-OP-3), as the kustomize path
 * has them for one instance (deploy/base): the server's Role is exactly C-K8S-10 (no Lease read: under the
 * operator there is no per-instance controller Lease to report); the sandbox ServiceAccount has no bindings and
 * mounts no token; sandboxes accept traffic only from this instance's server pods on the agent port and may
 * reach DNS and the Kubernetes API (their kubeconfig's target) — nothing else.
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
  const servers = { podSelector: { matchLabels: serverPodLabels(instance.name) } };
  return [
    child(SERVICE_ACCOUNTS, names.server, SERVER_COMPONENT, { automountServiceAccountToken: true }, [['automountServiceAccountToken']]),
    child(SERVICE_ACCOUNTS, names.sandboxServiceAccount, SANDBOX_COMPONENT, { automountServiceAccountToken: false }, [['automountServiceAccountToken']]),
    child(ROLES, names.server, SERVER_COMPONENT, {
      rules: [
        { apiGroups: [''], resources: ['pods'], verbs: ['get', 'list', 'watch', 'create', 'patch', 'delete'] },
        { apiGroups: [''], resources: ['secrets'], verbs: ['create', 'delete'] },
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
        egress: [
          // Cluster DNS: kube-dns, or OpenShift's dns-default (5353).
          {
            to: [{ namespaceSelector: {}, podSelector: { matchLabels: { 'k8s-app': 'kube-dns' } } }, { namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'openshift-dns' } } }],
            ports: [53, 5353].flatMap((port) => [{ protocol: 'UDP', port }, { protocol: 'TCP', port }]),
          },
          // The API server is not a pod: a policy can name it by address only (docs/operator.md "Network").
          { to: [{ ipBlock: { cidr: '0.0.0.0/0' } }], ports: [{ protocol: 'TCP', port: 443 }, { protocol: 'TCP', port: 6443 }] },
        ],
      },
    }, [['spec']]),
    child(NETWORK_POLICIES, names.server, SERVER_COMPONENT, {
      spec: { podSelector: servers.podSelector, policyTypes: ['Ingress'], ingress: [{ ports: [{ protocol: 'TCP', port: SERVER_PORT }] }] },
    }, [['spec']]),
  ];
}
