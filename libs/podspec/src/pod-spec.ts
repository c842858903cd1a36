import type { V1Container, V1EnvVar, V1PodSpec, V1Probe, V1SecurityContext } from '@kubernetes/client-node';
import { EGRESS_ENV_NAMES, egressCaInitContainer, egressSandboxEnv, egressSandboxMounts, egressSandboxVolumes, noDnsPodFields } from './egress/egress-sandbox.js';
import { sandboxWithoutDns, type SandboxPodConfig } from './sandbox-config.js';
import { overlayEnv } from './sandbox-env.js';

/**
 * The sandbox pod's `spec` (C-K8S-3): Go Phase 3 `BuildBasePodSpec` (Go §6.1) hardened to pass the
 * "restricted" Pod Security Standard. Everything here is operator-owned; only resources, env and pull policy
 * come from the overlay (Go §6.3). Pure and deterministic: the same config gives a deep-equal spec, which is
 * also what `sandboxSpecHash` hashes.
 */

/** Name of the single container. */
export const SANDBOX_CONTAINER_NAME = 'sandbox';
/** Name of the declared agent port (documentation only; nothing routes by it). */
export const AGENT_PORT_NAME = 'agent';
/** Mount point of the kubeconfig Secret; `KUBECONFIG` points at its `kubeconfig` key. */
export const KUBECONFIG_MOUNT_PATH = '/config';
/** Writable home and working directory (emptyDir). */
export const WORKSPACE_PATH = '/workspace';
/** Writable scratch space (emptyDir); the root filesystem is read-only. */
export const TMP_PATH = '/tmp';
/** Where the agent keeps the full output of recent commands (C-MCP-6). */
export const OUTPUT_DIR = `${WORKSPACE_PATH}/.cli-mcp`;

/**
 * Readiness probe timings. The agent answers `/health` within a few hundred ms of starting, so the first
 * probe at 1 s usually succeeds and a cold pod is Ready ~1 s after its container starts (Go: 2 s delay, then
 * up to 10 s more on a miss). A 2 s period bounds the cost of a missed first probe and lets a broken agent go
 * NotReady within ~6 s, at the price of one `curl` exec every 2 s per pod. `--max-time 1` under a 2 s
 * timeout keeps curl's own error rather than a kubelet timeout.
 */
export const READINESS_PROBE_TIMING = {
  initialDelaySeconds: 1,
  periodSeconds: 2,
  timeoutSeconds: 2,
  successThreshold: 1,
  failureThreshold: 3,
} as const;

/**
 * Builds the pod spec for `cfg`. `extraEnv` is appended after the overlay (the session token, Go §6.2); the
 * spec hash is taken without it, so session and warm pods of one config share a hash.
 */
export function buildSandboxPodSpec(cfg: SandboxPodConfig, extraEnv: readonly V1EnvVar[] = []): V1PodSpec {
  const container = buildSandboxContainer(cfg, extraEnv);
  const spec: V1PodSpec = {
    serviceAccountName: cfg.serviceAccountName,
    // The sandbox talks to the cluster with the mounted kubeconfig only, never with its own SA token.
    automountServiceAccountToken: false,
    // Service env vars leak the namespace's topology into the sandbox and can bloat the env in busy namespaces.
    enableServiceLinks: false,
    // No runAsUser: OpenShift assigns a UID from the namespace range; the image's numeric USER works elsewhere.
    securityContext: { runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } },
    // Explicit Always: a crashed agent comes back (unassigned) and the server re-delivers the token (C-K8S-7).
    restartPolicy: 'Always',
    // Lets the agent finish or cancel a running command on delete (Go §18.3, C-AG-10).
    terminationGracePeriodSeconds: cfg.terminationGracePeriodSeconds,
    containers: [container],
    volumes: [
      // With the egress gateway the real kubeconfig is the gateway's alone: the sandbox gets the dummy (C-EGR-5).
      ...(cfg.egressGateway === true ? egressSandboxVolumes(cfg.instanceName) : [{ name: 'kubeconfig', secret: { secretName: cfg.kubeconfigSecret } }]),
      { name: 'workspace', emptyDir: { sizeLimit: cfg.workspaceSizeLimit } },
      { name: 'tmp', emptyDir: { sizeLimit: cfg.tmpSizeLimit } },
    ],
  };
  if (cfg.egressGateway === true) spec.initContainers = [egressCaInitContainer(cfg.image, container, containerSecurityContext())];
  if (sandboxWithoutDns(cfg)) Object.assign(spec, noDnsPodFields(cfg.instanceName, cfg.namespace, cfg.egressProxyAddress));
  if (cfg.runtimeClassName !== undefined) spec.runtimeClassName = cfg.runtimeClassName;
  return spec;
}

/**
 * The env every sandbox starts with, before the overlay: kubeconfig and home (Go §6.1) and the agent's own
 * settings (C-AG-10, C-MCP-6), including the server's timeouts, so the agent caps at `--max-timeout` and not at
 * its own 300 s default (C-AG-14). They are part of the spec, so the spec hash changes with them and the
 * controller, building from the same config, recreates pool pods of an older max. The overlay may not override
 * any of them (`isReservedEnvName`).
 */
export function baseSandboxEnv(cfg: SandboxPodConfig): V1EnvVar[] {
  return [
    { name: 'KUBECONFIG', value: `${KUBECONFIG_MOUNT_PATH}/kubeconfig` },
    { name: 'HOME', value: WORKSPACE_PATH },
    { name: 'SANDBOX_WORKDIR', value: WORKSPACE_PATH },
    { name: 'SANDBOX_OUTPUT_DIR', value: OUTPUT_DIR },
    { name: 'SANDBOX_AGENT_PORT', value: String(cfg.agentPort) },
    { name: 'SANDBOX_MAX_TIMEOUT_SECONDS', value: String(cfg.maxTimeoutSeconds) },
    { name: 'SANDBOX_DEFAULT_TIMEOUT_SECONDS', value: String(cfg.defaultTimeoutSeconds) },
  ];
}

// The overlay, and with the egress gateway its proxy and CA variables, which no overlay entry may replace.
function sandboxOverlayEnv(cfg: SandboxPodConfig): V1EnvVar[] {
  if (cfg.egressGateway !== true) return overlayEnv(cfg.env);
  return [...overlayEnv(cfg.env).filter((e) => !EGRESS_ENV_NAMES.has(e.name)), ...egressSandboxEnv(cfg.instanceName, cfg.namespace)];
}

function buildSandboxContainer(cfg: SandboxPodConfig, extraEnv: readonly V1EnvVar[]): V1Container {
  const container: V1Container = {
    name: SANDBOX_CONTAINER_NAME,
    image: cfg.image,
    ports: [{ name: AGENT_PORT_NAME, containerPort: cfg.agentPort, protocol: 'TCP' }],
    env: [...baseSandboxEnv(cfg), ...sandboxOverlayEnv(cfg), ...extraEnv.map((e) => structuredClone(e))],
    resources: {
      requests: { cpu: cfg.resources.cpuRequest, memory: cfg.resources.memoryRequest },
      limits: { cpu: cfg.resources.cpuLimit, memory: cfg.resources.memoryLimit },
    },
    readinessProbe: readinessProbe(cfg.agentPort),
    securityContext: containerSecurityContext(),
    volumeMounts: [
      { name: 'kubeconfig', mountPath: KUBECONFIG_MOUNT_PATH, readOnly: true },
      { name: 'workspace', mountPath: WORKSPACE_PATH },
      { name: 'tmp', mountPath: TMP_PATH },
      ...(cfg.egressGateway === true ? egressSandboxMounts() : []),
    ],
  };
  if (cfg.imagePullPolicy !== undefined) container.imagePullPolicy = cfg.imagePullPolicy;
  return container;
}

// Exec, not httpGet: kubelet HTTP probes come from the node IP, which the sandbox NetworkPolicy blocks;
// loopback curl is allowed and `curl` is part of the sandbox image contract (Go §6.1).
function readinessProbe(port: number): V1Probe {
  return {
    exec: { command: ['curl', '-fsS', '--max-time', '1', `http://127.0.0.1:${port}/health`] },
    ...READINESS_PROBE_TIMING,
  };
}

/**
 * Restricted PSS at the container level too, so the pod passes even if a policy checks containers alone: the
 * sandbox's and the egress gateway's containers.
 */
export function containerSecurityContext(): V1SecurityContext {
  return {
    allowPrivilegeEscalation: false,
    privileged: false,
    capabilities: { drop: ['ALL'] },
    readOnlyRootFilesystem: true,
    runAsNonRoot: true,
    seccompProfile: { type: 'RuntimeDefault' },
  };
}
