import type { V1Pod } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { checkRestrictedPodSecurity } from '../testing/restricted-pss.js';
import { DEFAULT_API_SERVER, DEFAULT_EGRESS_REPLICAS, DEFAULT_EGRESS_RESOURCES, type EgressGatewayConfig } from './egress-gateway-config.js';
import { EGRESS_CONFIG_HASH_ANNOTATION, buildEgressGatewayDeployment, egressConfigHash, egressGatewayArgs } from './gateway-deployment.js';

const CFG: EgressGatewayConfig = {
  namespace: 'tools',
  instanceName: 'oc',
  image: 'quay.io/example/cli-mcp-egress:0.1.0',
  kubeconfigSecret: 'cli-mcp-oc-kubeconfig',
  replicas: DEFAULT_EGRESS_REPLICAS,
  resources: DEFAULT_EGRESS_RESOURCES,
  apiServer: DEFAULT_API_SERVER,
};
const INPUTS = { routesJson: '{"allow":["pypi.org:443"]}\n', kubeconfigVersion: '41' };

describe(buildEgressGatewayDeployment.name, () => {
  const deployment = buildEgressGatewayDeployment(CFG, INPUTS);
  const template = deployment.spec!.template;
  const container = template.spec!.containers[0]!;

  it('runs 2 replicas of the gateway under its own name, labels and ServiceAccount, rolling by surge only', () => {
    const labels = { 'cli-mcp.redhat.com/instance': 'oc', 'cli-mcp.redhat.com/component': 'egress-gateway' };
    expect(deployment.metadata).toEqual({ name: 'oc-egress', namespace: 'tools', labels });
    expect(deployment.spec!.replicas).toBe(2);
    expect(deployment.spec!.selector.matchLabels).toEqual(labels);
    expect(template.metadata!.labels).toEqual(labels);
    expect(template.spec!.serviceAccountName).toBe('oc-egress');
    expect(deployment.spec!.strategy).toEqual({ type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 0, maxSurge: 1 } });
  });

  it('passes the contract\'s command line to cli-mcp-egress, in the pod\'s own namespace', () => {
    expect(container.args).toEqual([
      '--instance-name', 'oc', '--namespace', '$(POD_NAMESPACE)', '--proxy-port', '3128', '--admin-port', '9090',
      '--routes-file', '/etc/cli-mcp-egress/routes/routes.json', '--kubeconfig-file', '/etc/cli-mcp-egress/kubeconfig/kubeconfig',
      '--ca-secret', 'oc-egress-ca', '--sandbox-configmap', 'oc-egress-sandbox', '--sandbox-proxy-url', 'http://oc-egress.$(POD_NAMESPACE).svc:3128',
    ]);
    expect(container.env).toEqual([{ name: 'POD_NAMESPACE', valueFrom: { fieldRef: { fieldPath: 'metadata.namespace' } } }]);
    expect(egressGatewayArgs(CFG)).toEqual(container.args);
  });

  it('mounts the routes ConfigMap and the real kubeconfig Secret read-only, and probes /healthz and /readyz on admin', () => {
    expect(template.spec!.volumes).toEqual([
      { name: 'routes', configMap: { name: 'oc-egress-routes' } },
      { name: 'kubeconfig', secret: { secretName: 'cli-mcp-oc-kubeconfig' } },
    ]);
    expect(container.volumeMounts).toEqual([
      { name: 'routes', mountPath: '/etc/cli-mcp-egress/routes', readOnly: true },
      { name: 'kubeconfig', mountPath: '/etc/cli-mcp-egress/kubeconfig', readOnly: true },
    ]);
    expect(container.ports).toEqual([
      { name: 'proxy', containerPort: 3128, protocol: 'TCP' },
      { name: 'admin', containerPort: 9090, protocol: 'TCP' },
    ]);
    expect(container.livenessProbe!.httpGet).toEqual({ path: '/healthz', port: 'admin' });
    expect(container.readinessProbe!.httpGet).toEqual({ path: '/readyz', port: 'admin' });
  });

  it('passes the restricted Pod Security Standard', () => {
    const pod: V1Pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'x' }, spec: template.spec! };
    expect(checkRestrictedPodSecurity(pod)).toEqual([]);
  });

  it('rolls when the routes or the kubeconfig Secret change, and only then', () => {
    const hash = (inputs: typeof INPUTS) => buildEgressGatewayDeployment(CFG, inputs).spec!.template.metadata!.annotations![EGRESS_CONFIG_HASH_ANNOTATION];
    expect(template.metadata!.annotations![EGRESS_CONFIG_HASH_ANNOTATION]).toBe(egressConfigHash(INPUTS));
    expect(hash({ ...INPUTS })).toBe(hash(INPUTS));
    expect(hash({ ...INPUTS, routesJson: '{"allow":["pypi.org:443","github.com:443"]}\n' })).not.toBe(hash(INPUTS));
    expect(hash({ ...INPUTS, kubeconfigVersion: '42' })).not.toBe(hash(INPUTS));
  });
});
