import { DurationRange, FromFlag, Satisfies, readSettings, type FlagReader, type FlagSpec } from '@cli-mcp/common';
import { DEFAULT_SANDBOX_FLAG_NAMES, validateSandboxPodConfig, type RawSandboxPodConfig, type SandboxFlagNames, type SandboxPodConfig } from '@cli-mcp/podspec';

/**
 * The Kubernetes settings the server and the sandbox controller share, defined ONCE (C-K8S-9, issue 9): the API
 * access (`--kubeconfig`), the namespace and instance, and the sandbox pod spec flags. Both apps put these table
 * entries in their flag tables (each under its own `--help` heading) and read them with `readKubernetesSettings`,
 * so a pool pod the controller builds and a session pod the server builds come from the same validated
 * `SandboxPodConfig` — the spec hash then matches (C-CTL-2).
 */
export const KUBERNETES_FLAGS: readonly FlagSpec[] = [
  { name: 'namespace', valueName: 'name', description: 'Namespace of sandbox pods (required).' },
  { name: 'instance-name', valueName: 'name', description: 'Instance label value; separates several servers in one namespace (required).' },
  { name: 'sandbox-image', valueName: 'image', description: 'Sandbox container image (required).' },
  { name: 'kubeconfig', valueName: 'path', description: 'This process\'s own kubeconfig; empty = in-cluster config.' },
  { name: 'kubeconfig-secret', valueName: 'name', description: 'Secret mounted at /config in sandboxes (required).' },
  { name: 'sandbox-service-account', valueName: 'name', description: 'ServiceAccount of sandbox pods (required).' },
  { name: 'sandbox-cpu-request', valueName: 'quantity', defaultText: '100m', description: 'CPU request of sandbox pods.' },
  { name: 'sandbox-cpu-limit', valueName: 'quantity', defaultText: '500m', description: 'CPU limit of sandbox pods.' },
  { name: 'sandbox-memory-request', valueName: 'quantity', defaultText: '128Mi', description: 'Memory request of sandbox pods.' },
  { name: 'sandbox-memory-limit', valueName: 'quantity', defaultText: '512Mi', description: 'Memory limit of sandbox pods.' },
  { name: 'sandbox-image-pull-policy', valueName: 'Always|Never|IfNotPresent', description: 'imagePullPolicy of the sandbox container (unset: Kubernetes default).' },
  { name: 'sandbox-env', valueName: 'json', description: 'Extra sandbox env as a JSON array of Kubernetes EnvVar.' },
  { name: 'sandbox-workspace-size-limit', valueName: 'quantity', defaultText: '1Gi', description: 'sizeLimit of the /workspace emptyDir.' },
  { name: 'sandbox-tmp-size-limit', valueName: 'quantity', defaultText: '256Mi', description: 'sizeLimit of the /tmp emptyDir (the root filesystem is read-only).' },
  { name: 'sandbox-termination-grace-period', valueName: 'seconds', defaultText: 'max-timeout + 10', description: 'terminationGracePeriodSeconds of sandbox pods (a running command may finish).' },
  { name: 'sandbox-runtime-class', valueName: 'name', description: 'runtimeClassName of sandbox pods (e.g. gvisor or kata for stronger isolation).' },
];

/**
 * The command timeouts (C-AG-14): the server's tool limits, and what every sandbox agent is started with — so
 * the controller takes the same two flags (set like the server's) for its pool pods to match the server's pods.
 */
export const COMMAND_TIMEOUT_FLAGS: readonly FlagSpec[] = [
  { name: 'default-timeout', valueName: 'duration', default: '60s', description: 'Command timeout when a call gives none (or ≤ 0).' },
  { name: 'max-timeout', valueName: 'duration', default: '300s', description: 'Upper bound of a call\'s timeout; larger values are clamped.' },
];

const DAY_MS = 86_400_000;

/** The two timeouts and their rules, shared by the server's and the controller's settings classes. */
export class CommandTimeoutSettings {
  @FromFlag('default-timeout', 'duration')
  @DurationRange({ minMs: 1000, maxMs: DAY_MS, wholeSeconds: true })
  @Satisfies((ms: number, s: CommandTimeoutSettings) => s.maxTimeoutMs === undefined || ms <= s.maxTimeoutMs, '{self} must not exceed {flagOf:maxTimeoutMs}')
  defaultTimeoutMs!: number;

  @FromFlag('max-timeout', 'duration') @DurationRange({ minMs: 1000, maxMs: DAY_MS, wholeSeconds: true }) maxTimeoutMs!: number;

  /** What the pods' agents get (whole seconds). */
  get podTimeouts(): { maxTimeoutSeconds: number; defaultTimeoutSeconds: number } {
    return { maxTimeoutSeconds: this.maxTimeoutMs / 1000, defaultTimeoutSeconds: this.defaultTimeoutMs / 1000 };
  }
}

/**
 * The shared flags as read (text, once). The pod settings are validated by libs/podspec
 * (`validateSandboxPodConfig`: the Kubernetes quantity grammar, requests ≤ limits, the EnvVar overlay — the same
 * validator accepts a CR's values), every problem naming its flag and env var.
 */
export class KubernetesSettings {
  @FromFlag('namespace') namespace?: string;
  @FromFlag('instance-name') instanceName?: string;
  @FromFlag('sandbox-image') sandboxImage?: string;
  @FromFlag('kubeconfig') kubeconfig?: string;
  @FromFlag('kubeconfig-secret') kubeconfigSecret?: string;
  @FromFlag('sandbox-service-account') sandboxServiceAccount?: string;
  @FromFlag('sandbox-cpu-request') cpuRequest?: string;
  @FromFlag('sandbox-cpu-limit') cpuLimit?: string;
  @FromFlag('sandbox-memory-request') memoryRequest?: string;
  @FromFlag('sandbox-memory-limit') memoryLimit?: string;
  @FromFlag('sandbox-image-pull-policy') imagePullPolicy?: string;
  @FromFlag('sandbox-env') sandboxEnv?: string;
  @FromFlag('sandbox-workspace-size-limit') workspaceSizeLimit?: string;
  @FromFlag('sandbox-tmp-size-limit') tmpSizeLimit?: string;
  @FromFlag('sandbox-termination-grace-period') terminationGracePeriod?: string;
  @FromFlag('sandbox-runtime-class') runtimeClass?: string;
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
      .filter(([field]) => field !== 'agentPort')
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
      ...timeouts,
    },
    names,
  );
  warnings.push(...result.warnings);
  // The timeout rules are the app's own too: a shared problem is reported once.
  if (!result.ok) for (const error of result.errors) if (!flags.problems.includes(error)) flags.fail(error);
  return { settings, podConfig: result.ok ? result.config : undefined };
}
