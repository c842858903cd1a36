import { buildEgressService, egressNames } from '@cli-mcp/podspec';
import { CONFIG_MAPS, type FakeCluster, type KubeObject, type ResourceDefinition } from '@cli-mcp/testing';

/**
 * The egress gateway's Service in a fake cluster, as the manifests and the operator create it (libs/podspec's
 * builder): with `--sandbox-dns none` the fail-closed gate needs it and gives its ClusterIP to the pods (C-EGR-1).
 * The fake allocates the address; a re-created Service gets a new one.
 */
type Cluster = Pick<FakeCluster, 'api' | 'registry'>;

function services(cluster: Cluster): ResourceDefinition {
  const found = cluster.registry.find('', 'v1', 'services');
  if (found === undefined) throw new Error('the fake API server serves no services');
  return found;
}

/** Creates Service `<instance>-egress`; returns its ClusterIP. */
export function createEgressService(cluster: Cluster, namespace: string, instance: string): string {
  const created = cluster.api.create(services(cluster), namespace, buildEgressService({ namespace, instanceName: instance }) as unknown as KubeObject);
  return (created['spec'] as { clusterIP: string }).clusterIP;
}

export function deleteEgressService(cluster: Cluster, namespace: string, instance: string): void {
  cluster.api.delete(services(cluster), namespace, egressNames(instance).gateway);
}

/** The CA the stand-in publication carries (what a sandbox's `ca.crt` reads). */
export const EGRESS_SANDBOX_CA = '-----BEGIN CERTIFICATE-----\nstand-in\n-----END CERTIFICATE-----\n';

/**
 * What the gateway publishes at start (apps/egress-gateway): ConfigMap `<instance>-egress-sandbox` with its CA and
 * the dummy kubeconfig. The kubelet mounts it in every sandbox and does not start a sandbox pod without it.
 */
export function publishEgressSandboxConfig(cluster: Cluster, namespace: string, instance: string): void {
  cluster.api.create(CONFIG_MAPS, namespace, {
    apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: egressNames(instance).sandboxConfigMap },
    data: { 'ca.crt': EGRESS_SANDBOX_CA, kubeconfig: 'apiVersion: v1\nkind: Config\n' },
  });
}
