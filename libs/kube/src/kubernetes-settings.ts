import { Flag, FlagGroup, readSettings, type FlagReader } from '@cli-mcp/common';
import { DEFAULT_SANDBOX_FLAG_NAMES, validateSandboxPodConfig, type RawSandboxPodConfig, type SandboxFlagNames, type SandboxPodConfig } from '@cli-mcp/podspec';

/**
 * The Kubernetes settings the server and the sandbox controller share, declared ONCE (C-K8S-9, issue 19 item 4):
 * the API access (`--kubeconfig`), the namespace and instance, and the sandbox pod spec flags. Both apps put
 * `flagTable(KubernetesSettings)` in their tables and read it with `readKubernetesSettings`, so a pool pod the
 * controller builds and a session pod the server builds come from the same validated `SandboxPodConfig` — the
 * spec hash then matches (C-CTL-2).
 */
export const KUBERNETES_GROUP = 'Kubernetes (server --backend kubernetes, sandbox-controller and cli-mcp-egress: give them the same values)';

/**
 * Where an app finds its instance on the API server: the part of the shared flags every Kubernetes app of an
 * instance takes — the server, the controller and the egress gateway (`cli-mcp-egress`, which watches the
 * instance's sandbox pods to attribute connections).
 */
@FlagGroup(KUBERNETES_GROUP)
export class KubeAccessSettings {
  @Flag('namespace', { valueName: 'name', description: 'Namespace of sandbox pods (required).' })
  namespace?: string;
  @Flag('instance-name', { valueName: 'name', description: 'Instance label value; separates several servers in one namespace (required).' })
  instanceName?: string;
  @Flag('kubeconfig', { valueName: 'path', description: 'This process\'s own kubeconfig; empty = in-cluster config.' })
  kubeconfig?: string;
}

/**
 * The shared flags as read (text, once). The pod settings are validated by libs/podspec
 * (`validateSandboxPodConfig`: the Kubernetes quantity grammar, requests ≤ limits, the EnvVar overlay — the same
 * validator accepts a CR's values), every problem naming its flag and env var.
 */
@FlagGroup(KUBERNETES_GROUP)
export class KubernetesSettings extends KubeAccessSettings {
  @Flag('sandbox-image', { valueName: 'image', description: 'Sandbox container image (required).' })
  sandboxImage?: string;
  @Flag('kubeconfig-secret', { valueName: 'name', description: 'Secret mounted at /config in sandboxes (required).' })
  kubeconfigSecret?: string;
  @Flag('sandbox-service-account', { valueName: 'name', description: 'ServiceAccount of sandbox pods (required).' })
  sandboxServiceAccount?: string;
  @Flag('sandbox-cpu-request', { valueName: 'quantity', defaultText: '100m', description: 'CPU request of sandbox pods.' })
  cpuRequest?: string;
  @Flag('sandbox-cpu-limit', { valueName: 'quantity', defaultText: '500m', description: 'CPU limit of sandbox pods.' })
  cpuLimit?: string;
  @Flag('sandbox-memory-request', { valueName: 'quantity', defaultText: '128Mi', description: 'Memory request of sandbox pods.' })
  memoryRequest?: string;
  @Flag('sandbox-memory-limit', { valueName: 'quantity', defaultText: '512Mi', description: 'Memory limit of sandbox pods.' })
  memoryLimit?: string;
  @Flag('sandbox-image-pull-policy', { valueName: 'Always|Never|IfNotPresent', description: 'imagePullPolicy of the sandbox container (unset: Kubernetes default).' })
  imagePullPolicy?: string;
  @Flag('sandbox-env', { valueName: 'json', description: 'Extra sandbox env as a JSON array of Kubernetes EnvVar.' })
  sandboxEnv?: string;
  @Flag('sandbox-workspace-size-limit', { valueName: 'quantity', defaultText: '1Gi', description: 'sizeLimit of the /workspace emptyDir.' })
  workspaceSizeLimit?: string;
  @Flag('sandbox-tmp-size-limit', { valueName: 'quantity', defaultText: '256Mi', description: 'sizeLimit of the /tmp emptyDir (the root filesystem is read-only).' })
  tmpSizeLimit?: string;
  @Flag('sandbox-termination-grace-period', { valueName: 'seconds', defaultText: 'max-timeout + 10', description: 'terminationGracePeriodSeconds of sandbox pods (a running command may finish).' })
  terminationGracePeriod?: string;
  @Flag('sandbox-runtime-class', { valueName: 'name', description: 'runtimeClassName of sandbox pods (e.g. gvisor or kata for stronger isolation).' })
  runtimeClass?: string;
  // Issue 20 item 3 (C-EGR-1, C-EGR-6): both the server and the controller must agree, or pool pods and session pods
  // would differ (spec hash) and one of them would create pods while the gate is shut.
  @Flag('egress-gateway', { type: 'boolean', description: 'Sandboxes reach out only through the instance\'s egress gateway (cli-mcp-egress, Service <instance>-egress): they mount its dummy kubeconfig instead of --kubeconfig-secret, get its proxy and CA, and no pod is claimed or created while its gate is shut (docs/egress.md).' })
  egressGateway?: boolean;
  // C-EGR-1: whether sandboxes behind the gateway get a resolver; shared for the same reason (it is in the pod spec).
  @Flag('sandbox-dns', { valueName: 'none|cluster', defaultText: 'none', description: 'With --egress-gateway: none gives sandboxes no resolver (they reach the gateway by its ClusterIP, and clients behind a proxy resolve nothing; no data leaves through DNS); cluster keeps cluster DNS (docs/egress.md "DNS").' })
  sandboxDns?: string;
}

export interface KubernetesConfig {
  readonly settings: KubernetesSettings;
  /** Set when `validate` was asked for and every pod setting is valid. */
  readonly podConfig: SandboxPodConfig | undefined;
}

/**
 * Reads the shared flags once; with `validate` (the backend is selected / the controller runs) the pod settings
 * are validated too, problems recorded on `flags` and warnings appended to `warnings`. `timeouts` are the
 * `--default-timeout`/`--max-timeout` the agents in the pods must apply (C-AG-14): the server's own, and the
 * controller's (the same flags, which must match the server's for pool pods to match its pods).
 */
export function readKubernetesSettings(
  flags: FlagReader,
  validate: boolean,
  timeouts: Pick<RawSandboxPodConfig, 'maxTimeoutSeconds' | 'defaultTimeoutSeconds'>,
  warnings: string[],
): KubernetesConfig {
  const settings = readSettings(KubernetesSettings, flags);
  if (!validate) return { settings, podConfig: undefined };
  // Name every field as `--flag (env PREFIX_FLAG)`; the agent port is not a flag (the default is used).
  const names = Object.fromEntries(
    Object.entries(DEFAULT_SANDBOX_FLAG_NAMES)
      .filter(([field]) => field !== 'agentPort' && field !== 'egressGateway')
      .map(([field, flag]) => [field, flags.label(flag.replace(/^--/, ''))]),
  ) as Partial<SandboxFlagNames>;
  const result = validateSandboxPodConfig(
    {
      namespace: settings.namespace,
      instanceName: settings.instanceName,
      image: settings.sandboxImage,
      imagePullPolicy: settings.imagePullPolicy,
      serviceAccountName: settings.sandboxServiceAccount,
      kubeconfigSecret: settings.kubeconfigSecret,
      cpuRequest: settings.cpuRequest,
      cpuLimit: settings.cpuLimit,
      memoryRequest: settings.memoryRequest,
      memoryLimit: settings.memoryLimit,
      env: settings.sandboxEnv,
      workspaceSizeLimit: settings.workspaceSizeLimit,
      tmpSizeLimit: settings.tmpSizeLimit,
      terminationGracePeriodSeconds: settings.terminationGracePeriod,
      runtimeClassName: settings.runtimeClass,
      egressGateway: settings.egressGateway === true,
      sandboxDns: settings.sandboxDns,
      ...timeouts,
    },
    names,
  );
  warnings.push(...result.warnings);
  // The timeout rules are the app's own too (`SandboxSettings`): a flag that already has a problem is not named twice.
  const named = (error: string): boolean => {
    const flag = /^--[a-z-]+ \(env [A-Z_]+\)/.exec(error)?.[0];
    return flag !== undefined && flags.problems.some((problem) => problem.startsWith(flag));
  };
  if (!result.ok) for (const error of result.errors) if (!named(error)) flags.fail(error);
  return { settings, podConfig: result.ok ? result.config : undefined };
}
