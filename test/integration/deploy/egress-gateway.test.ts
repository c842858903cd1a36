/**
 * The base's egress gateway (issue 20 items 3 and 7) as `kubectl kustomize` renders it: every object is what the
 * libs/podspec builders build (the YAML is their output, so the manifests, the operator and the gate agree on names,
 * labels, ports and policies), the routes ConfigMap the Deployment mounts is the generated one and its config hash
 * covers it, and both the servers and the controller run with --egress-gateway.
 */
import { expect, it } from 'vitest';
import {
  DEFAULT_API_SERVER,
  DEFAULT_EGRESS_REPLICAS,
  DEFAULT_EGRESS_RESOURCES,
  EGRESS_CONFIG_HASH_ANNOTATION,
  buildEgressGatewayDeployment,
  buildEgressGatewayPolicy,
  buildEgressPodDisruptionBudget,
  buildEgressRole,
  buildEgressRoleBinding,
  buildEgressService,
  buildEgressServiceAccount,
  buildSandboxEgressPolicy,
  egressConfigHash,
  type EgressGatewayConfig,
} from '@cli-mcp/podspec';
import { controllerConfigOf, serverConfigOf } from './support/effective-settings.js';
import { render, type Manifest } from './support/rendered.js';
import { describeWhenReady, KUBECTL, KUBECTL_PROBLEM } from '../../support/prerequisites.js';

const TARGET = 'deploy/base';
const manifests = KUBECTL ? render(TARGET) : [];
const find = (kind: string, name: string): Manifest & Record<string, unknown> => {
  const found = manifests.find((m) => m.kind === kind && m.metadata.name === name);
  if (!found) throw new Error(`${TARGET}: no ${kind}/${name}`);
  return found as Manifest & Record<string, unknown>;
};

/** The builder object without what kustomize adds or names differently (namespace, common labels, generated names). */
function comparable(object: object): Record<string, unknown> {
  const { metadata, ...rest } = structuredClone(object) as { metadata: { name: string } } & Record<string, unknown>;
  return { name: metadata.name, ...rest };
}

describeWhenReady('the egress gateway of deploy/base', KUBECTL_PROBLEM, () => {
  const namespace = 'ignored';
  const cfg: EgressGatewayConfig = {
    namespace, instanceName: 'oc', image: 'quay.io/example/cli-mcp-egress:0.1.0', kubeconfigSecret: 'cli-mcp-oc-kubeconfig',
    replicas: DEFAULT_EGRESS_REPLICAS, resources: DEFAULT_EGRESS_RESOURCES, apiServer: DEFAULT_API_SERVER,
  };
  const routesMap = () => manifests.find((m) => m.kind === 'ConfigMap' && m.metadata.name.startsWith('oc-egress-routes-')) as Manifest & { data: Record<string, string> };

  it('renders exactly what the libs/podspec builders build', () => {
    const routes = JSON.parse(routesMap().data['routes.json']!) as { allow: string[] };
    const built = [
      buildEgressServiceAccount(cfg), buildEgressRole(cfg), buildEgressRoleBinding(cfg), buildEgressService(cfg), buildEgressPodDisruptionBudget(cfg),
      buildSandboxEgressPolicy(cfg), buildEgressGatewayPolicy(cfg, routes),
      buildEgressGatewayDeployment(cfg, { routesJson: routesMap().data['routes.json']!, kubeconfigVersion: '' }),
    ];
    for (const object of built) {
      const expected = comparable(object) as Record<string, unknown> & { subjects?: Array<Record<string, unknown>> };
      for (const subject of expected.subjects ?? []) delete subject['namespace'];
      const rendered = comparable(find(object.kind!, object.metadata!.name!)) as Record<string, unknown> & { subjects?: Array<Record<string, unknown>> };
      for (const subject of rendered.subjects ?? []) delete subject['namespace'];
      // The generated routes ConfigMap carries a content-hash suffix: a routes change rolls the gateway.
      const volumes = (rendered as { spec?: { template?: { spec?: { volumes?: Array<{ configMap?: { name: string } }> } } } }).spec?.template?.spec?.volumes ?? [];
      for (const volume of volumes) if (volume.configMap) volume.configMap.name = volume.configMap.name.replace(/-[a-z0-9]{10}$/, '');
      expect(rendered, `${object.kind}/${object.metadata!.name}`).toEqual(expected);
    }
  });

  it('mounts the generated routes ConfigMap, whose content the pod template\'s config hash covers', () => {
    const deployment = find('Deployment', 'oc-egress') as unknown as { spec: { template: { metadata: { annotations: Record<string, string> }; spec: { volumes: Array<{ configMap?: { name: string } }> } } } };
    expect(deployment.spec.template.spec.volumes.map((v) => v.configMap?.name).filter(Boolean)).toEqual([routesMap().metadata.name]);
    expect(deployment.spec.template.metadata.annotations[EGRESS_CONFIG_HASH_ANNOTATION]).toBe(egressConfigHash({ routesJson: routesMap().data['routes.json']!, kubeconfigVersion: '' }));
  });

  it('turns --egress-gateway on for the servers and the controller alike: their sandboxes mount no kubeconfig Secret', async () => {
    const server = (await serverConfigOf(manifests)).kubernetes.podConfig!;
    const controller = controllerConfigOf(manifests).podConfig;
    expect(server.egressGateway).toBe(true);
    expect(controller).toEqual(server);
  });
});
