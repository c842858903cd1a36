import type { V1EnvVar } from '@kubernetes/client-node';

/**
 * The typed, already-validated sandbox configuration the builders consume (C-K8S-3, C-CFG-1). Only
 * `validateSandboxPodConfig` should produce one from user input; the builders trust it and never throw.
 */

/** `imagePullPolicy` values; `undefined` leaves the field unset (Kubernetes then defaults by tag). */
export type ImagePullPolicy = 'Always' | 'Never' | 'IfNotPresent';

/** The accepted pull policies, exactly and case-sensitively (Go §7.2). */
export const IMAGE_PULL_POLICIES: readonly ImagePullPolicy[] = ['Always', 'Never', 'IfNotPresent'];

/** Container resources as Kubernetes quantity strings (validated, requests ≤ limits). */
export interface SandboxResources {
  readonly cpuRequest: string;
  readonly cpuLimit: string;
  readonly memoryRequest: string;
  readonly memoryLimit: string;
}

/** Everything the sandbox Pod and Secret builders need. */
export interface SandboxPodConfig {
  readonly namespace: string;
  /** `--instance-name`: label value and name component (C-K8S-1/2). */
  readonly instanceName: string;
  readonly image: string;
  readonly imagePullPolicy?: ImagePullPolicy | undefined;
  readonly serviceAccountName: string;
  /** Secret mounted at `/config` (the sandbox's kubeconfig, key `kubeconfig`). */
  readonly kubeconfigSecret: string;
  readonly resources: SandboxResources;
  /** Operator env overlay, reserved names already removed (Go §6.3). */
  readonly env: readonly V1EnvVar[];
  /** `sizeLimit` of the `/workspace` emptyDir (exceeding it evicts the pod). */
  readonly workspaceSizeLimit: string;
  /** `sizeLimit` of the `/tmp` emptyDir. */
  readonly tmpSizeLimit: string;
  readonly terminationGracePeriodSeconds: number;
  readonly agentPort: number;
  readonly runtimeClassName?: string | undefined;
  /**
   * The server's `--max-timeout` in whole seconds, delivered as `SANDBOX_MAX_TIMEOUT_SECONDS`: the agent's own
   * cap is the server's, never a hidden lower one (C-AG-14).
   */
  readonly maxTimeoutSeconds: number;
  /** The server's `--default-timeout` (≤ the max, or the agent refuses to start): `SANDBOX_DEFAULT_TIMEOUT_SECONDS`. */
  readonly defaultTimeoutSeconds: number;
  /**
   * `--egress-gateway`: the sandboxes reach out only through the instance's gateway and never mount
   * `kubeconfigSecret` (issue 20 item 3, C-EGR-1); absent = off. Part of the pod spec, so of the spec hash.
   */
  readonly egressGateway?: boolean | undefined;
  /**
   * `--sandbox-dns`, set only with the gateway on: `none` (the default) gives the sandbox no resolver at all — the
   * proxy is reached through a `hostAliases` entry and clients behind a proxy never resolve their targets — so a
   * command cannot leak data through DNS; `cluster` keeps cluster DNS (docs/egress.md "DNS").
   */
  readonly sandboxDns?: SandboxDns | undefined;
  /**
   * The gateway Service's ClusterIP, learnt at run time from the gate's verdict (never a flag) and set with
   * `withEgressProxyAddress` just before a pod is built: with `sandboxDns: 'none'` it becomes the pod's
   * `hostAliases` entry for the proxy's name, and so part of the spec hash (a re-created Service makes older pool
   * pods stale).
   */
  readonly egressProxyAddress?: string | undefined;
}

/** `--sandbox-dns` values. */
export type SandboxDns = 'cluster' | 'none';
export const SANDBOX_DNS_MODES: readonly SandboxDns[] = ['none', 'cluster'];

/** Whether pods of `cfg` have no resolver and reach the gateway by a `hostAliases` entry (C-EGR-1). */
export function sandboxWithoutDns(cfg: Pick<SandboxPodConfig, 'egressGateway' | 'sandboxDns'>): boolean {
  return cfg.egressGateway === true && cfg.sandboxDns === 'none';
}

/** `cfg` with the gateway's address for the pods about to be built (unchanged when they need none). */
export function withEgressProxyAddress(cfg: SandboxPodConfig, address: string | undefined): SandboxPodConfig {
  return sandboxWithoutDns(cfg) && address !== undefined ? { ...cfg, egressProxyAddress: address } : cfg;
}

/** Go `DefaultConfig()` resources (Go §3.1). */
export const DEFAULT_SANDBOX_RESOURCES: SandboxResources = {
  cpuRequest: '100m',
  cpuLimit: '500m',
  memoryRequest: '128Mi',
  memoryLimit: '512Mi',
};

/** Default `/workspace` size limit: room for repositories and command output, bounded per pod. */
export const DEFAULT_WORKSPACE_SIZE_LIMIT = '1Gi';
/** Default `/tmp` size limit. */
export const DEFAULT_TMP_SIZE_LIMIT = '256Mi';
/** The server's and the agent's default `--max-timeout` / `--default-timeout` (C-MCP-3). */
export const DEFAULT_MAX_TIMEOUT_SECONDS = 300;
export const DEFAULT_TIMEOUT_SECONDS = 60;
/**
 * Room beyond the max command time so the agent can drain a running command on delete (Go §18.3, C-HTTP-4):
 * the default grace period is `maxTimeoutSeconds` + this.
 */
export const TERMINATION_GRACE_MARGIN_SECONDS = 10;
/** The grace period for the default max timeout: 300 s + 10 s. */
export const DEFAULT_TERMINATION_GRACE_PERIOD_SECONDS = DEFAULT_MAX_TIMEOUT_SECONDS + TERMINATION_GRACE_MARGIN_SECONDS;
/** The agent's port (C-AG-10). */
export const DEFAULT_AGENT_PORT = 8090;

/**
 * Unvalidated input: flag/env strings or values from another source (a CR). Blank strings count as unset.
 * `env` is either the `--sandbox-env` JSON text or an already-decoded EnvVar list.
 */
export interface RawSandboxPodConfig {
  namespace?: string;
  instanceName?: string;
  image?: string;
  imagePullPolicy?: string;
  serviceAccountName?: string;
  kubeconfigSecret?: string;
  cpuRequest?: string;
  cpuLimit?: string;
  memoryRequest?: string;
  memoryLimit?: string;
  env?: string | readonly V1EnvVar[];
  workspaceSizeLimit?: string;
  tmpSizeLimit?: string;
  terminationGracePeriodSeconds?: string | number;
  agentPort?: string | number;
  runtimeClassName?: string;
  /** Whole seconds (the server converts its durations). */
  maxTimeoutSeconds?: string | number;
  defaultTimeoutSeconds?: string | number;
  /** Already parsed by the flag table (a boolean flag). */
  egressGateway?: boolean;
  /** `none` or `cluster`; blank = `none`. Meaningful with `egressGateway` only. */
  sandboxDns?: string;
}

/** How each field is named in error messages (a flag, or e.g. `--flag / CLI_MCP_FLAG`, or a CR path). */
export type SandboxFlagNames = { readonly [K in keyof RawSandboxPodConfig]-?: string };

/** Flag names of the server (Go §7.2, C-K8S-9); those after `--sandbox-env` are this project's additions. */
export const DEFAULT_SANDBOX_FLAG_NAMES: SandboxFlagNames = {
  namespace: '--namespace',
  instanceName: '--instance-name',
  image: '--sandbox-image',
  imagePullPolicy: '--sandbox-image-pull-policy',
  serviceAccountName: '--sandbox-service-account',
  kubeconfigSecret: '--kubeconfig-secret',
  cpuRequest: '--sandbox-cpu-request',
  cpuLimit: '--sandbox-cpu-limit',
  memoryRequest: '--sandbox-memory-request',
  memoryLimit: '--sandbox-memory-limit',
  env: '--sandbox-env',
  workspaceSizeLimit: '--sandbox-workspace-size-limit',
  tmpSizeLimit: '--sandbox-tmp-size-limit',
  terminationGracePeriodSeconds: '--sandbox-termination-grace-period',
  agentPort: '--sandbox-agent-port',
  runtimeClassName: '--sandbox-runtime-class',
  maxTimeoutSeconds: '--max-timeout',
  defaultTimeoutSeconds: '--default-timeout',
  egressGateway: '--egress-gateway',
  sandboxDns: '--sandbox-dns',
};
