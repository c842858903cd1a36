import { createHash } from 'node:crypto';
import type { V1Container, V1Deployment, V1Probe } from '@kubernetes/client-node';
import { egressGatewayLabels } from '../labels.js';
import { containerSecurityContext } from '../pod-spec.js';
import { canonicalJson } from '../spec-hash.js';
import type { EgressGatewayConfig } from './egress-gateway-config.js';
import {
  EGRESS_ADMIN_PORT,
  EGRESS_ADMIN_PORT_NAME,
  EGRESS_KUBECONFIG_DIR,
  EGRESS_PROXY_PORT,
  EGRESS_PROXY_PORT_NAME,
  EGRESS_ROUTES_DIR,
  EGRESS_ROUTES_KEY,
  EGRESS_SANDBOX_KUBECONFIG_KEY,
  egressNames,
  egressProxyUrl,
} from './egress-names.js';

/**
 * Annotation on the gateway's pod template: a hash of what the gateway reads once at start (the routes and the
 * investigation kubeconfig), so a change of either rolls the Deployment (issue 20 item 3) — the gateway never
 * watches its files, as in the Go system (reload by roll).
 */
export const EGRESS_CONFIG_HASH_ANNOTATION = 'cli-mcp.redhat.com/egress-config-hash';

const POD_NAMESPACE_REF = '$(POD_NAMESPACE)';

/** What the config hash covers: the routes document's text and the kubeconfig Secret's resourceVersion or content hash. */
export interface EgressConfigInputs {
  readonly routesJson: string;
  readonly kubeconfigVersion: string;
}

export function egressConfigHash(inputs: EgressConfigInputs): string {
  return createHash('sha256').update(canonicalJson(inputs), 'utf8').digest('hex').slice(0, 16);
}

/**
 * The gateway container's command line: the fixed contract with `cli-mcp-egress` (apps/egress-gateway). The
 * namespace is the pod's own (`$(POD_NAMESPACE)`, expanded by the kubelet), so the same Deployment serves whatever
 * namespace it is applied in (`kubectl -n`, a kustomize overlay), like the server's and the controller's.
 */
export function egressGatewayArgs(cfg: Pick<EgressGatewayConfig, 'instanceName'>): string[] {
  const names = egressNames(cfg.instanceName);
  return [
    '--instance-name', cfg.instanceName,
    '--namespace', POD_NAMESPACE_REF,
    '--proxy-port', String(EGRESS_PROXY_PORT),
    '--admin-port', String(EGRESS_ADMIN_PORT),
    '--routes-file', `${EGRESS_ROUTES_DIR}/${EGRESS_ROUTES_KEY}`,
    '--kubeconfig-file', `${EGRESS_KUBECONFIG_DIR}/${EGRESS_SANDBOX_KUBECONFIG_KEY}`,
    '--ca-secret', names.caSecret,
    '--sandbox-configmap', names.sandboxConfigMap,
    '--sandbox-proxy-url', egressProxyUrl(cfg.instanceName, POD_NAMESPACE_REF),
  ];
}

/**
 * The gateway Deployment: `replicas` (2) behind a PDB, spread over nodes, a surge-only rolling update (the
 * sandboxes never lose their only way out during a roll), restricted PSS, probes on the admin port. It holds the
 * real kubeconfig (mounted from `--kubeconfig-secret`, which no sandbox mounts any more) and runs under its own
 * ServiceAccount (pods list/watch for attribution, its CA Secret and sandbox ConfigMap).
 */
export function buildEgressGatewayDeployment(cfg: EgressGatewayConfig, inputs: EgressConfigInputs): V1Deployment {
  const names = egressNames(cfg.instanceName);
  const labels = egressGatewayLabels(cfg.instanceName);
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: names.gateway, namespace: cfg.namespace, labels },
    spec: {
      replicas: cfg.replicas,
      revisionHistoryLimit: 5,
      strategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 0, maxSurge: 1 } },
      selector: { matchLabels: labels },
      template: {
        metadata: { labels, annotations: { [EGRESS_CONFIG_HASH_ANNOTATION]: egressConfigHash(inputs) } },
        spec: {
          serviceAccountName: names.gateway,
          // Its token is needed: pods list/watch (attribution), the CA Secret and the sandbox ConfigMap.
          automountServiceAccountToken: true,
          enableServiceLinks: false,
          // Open tunnels (watch and log streams) get a clean end, as the Go proxy's 15 s drain.
          terminationGracePeriodSeconds: 20,
          securityContext: { runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } },
          topologySpreadConstraints: [
            { maxSkew: 1, topologyKey: 'kubernetes.io/hostname', whenUnsatisfiable: 'ScheduleAnyway', labelSelector: { matchLabels: labels } },
          ],
          containers: [gatewayContainer(cfg)],
          volumes: [
            { name: 'routes', configMap: { name: names.routesConfigMap } },
            { name: 'kubeconfig', secret: { secretName: cfg.kubeconfigSecret } },
          ],
        },
      },
    },
  };
}

function gatewayContainer(cfg: EgressGatewayConfig): V1Container {
  const container: V1Container = {
    name: 'egress',
    image: cfg.image,
    args: egressGatewayArgs(cfg),
    env: [{ name: 'POD_NAMESPACE', valueFrom: { fieldRef: { fieldPath: 'metadata.namespace' } } }],
    ports: [
      { name: EGRESS_PROXY_PORT_NAME, containerPort: EGRESS_PROXY_PORT, protocol: 'TCP' },
      { name: EGRESS_ADMIN_PORT_NAME, containerPort: EGRESS_ADMIN_PORT, protocol: 'TCP' },
    ],
    readinessProbe: probe('/readyz', 5),
    livenessProbe: probe('/healthz', 10),
    resources: {
      requests: { cpu: cfg.resources.cpuRequest, memory: cfg.resources.memoryRequest },
      limits: { cpu: cfg.resources.cpuLimit, memory: cfg.resources.memoryLimit },
    },
    securityContext: containerSecurityContext(),
    volumeMounts: [
      { name: 'routes', mountPath: EGRESS_ROUTES_DIR, readOnly: true },
      { name: 'kubeconfig', mountPath: EGRESS_KUBECONFIG_DIR, readOnly: true },
    ],
  };
  if (cfg.imagePullPolicy !== undefined) container.imagePullPolicy = cfg.imagePullPolicy;
  return container;
}

function probe(path: string, periodSeconds: number): V1Probe {
  return { httpGet: { path, port: EGRESS_ADMIN_PORT_NAME }, periodSeconds, timeoutSeconds: 3, failureThreshold: 3 };
}
