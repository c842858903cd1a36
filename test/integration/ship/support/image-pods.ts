import type { V1Container, V1PodSpec } from '@kubernetes/client-node';
import { buildSessionPod, validateSandboxPodConfig } from '@cli-mcp/podspec';
import type { ClusterInputs } from './pod-container.js';

/**
 * How each image runs as a pod in the ship checks, engine-less (bwrap over the assembled COPY set) and real
 * (podman over the built image): the pod spec, the inputs the cluster would supply, and what "ready" means.
 */
export interface PodUnderTest {
  readonly pod: V1PodSpec;
  readonly container: V1Container;
}

export const SERVER_BEARER = 'ship-bearer-token-0123456789abcdef';
export const SANDBOX_TOKEN = 'f'.repeat(64);

/** `podman run -e CLI_MCP_… -v …` of the server image, as a pod: no command, so ENTRYPOINT + CMD (or `args`) run. */
export function serverPod(args?: string[]): PodUnderTest {
  const env = Object.entries({
    CLI_MCP_AUTH_TOKEN_FILE: '/etc/cli-mcp/auth/token',
    CLI_MCP_HMAC_KEY_FILE: '/etc/cli-mcp/hmac/key',
    CLI_MCP_KUBECONFIG: '/etc/cli-mcp/kube/config',
    CLI_MCP_NAMESPACE: 'default',
    CLI_MCP_INSTANCE_NAME: 'ship',
    CLI_MCP_SANDBOX_IMAGE: 'cli-mcp-sandbox:test',
    CLI_MCP_KUBECONFIG_SECRET: 'investigation',
    CLI_MCP_SANDBOX_SERVICE_ACCOUNT: 'sandbox',
    CLI_MCP_ALLOWED_HOSTS: 'cli-mcp-server',
  }).map(([name, value]) => ({ name, value }));
  const container: V1Container = {
    name: 'server', args, env,
    volumeMounts: [
      { name: 'auth', mountPath: '/etc/cli-mcp/auth' }, { name: 'hmac', mountPath: '/etc/cli-mcp/hmac' },
      { name: 'kube', mountPath: '/etc/cli-mcp/kube' }, { name: 'tmp', mountPath: '/tmp' },
    ],
  };
  const pod: V1PodSpec = {
    containers: [container],
    volumes: [
      { name: 'auth', secret: { secretName: 'auth' } }, { name: 'hmac', secret: { secretName: 'hmac' } },
      { name: 'kube', secret: { secretName: 'kube' } }, { name: 'tmp', emptyDir: {} },
    ],
  };
  return { pod, container };
}

/** The Secrets the server pod mounts, the kubeconfig pointing at the dev cluster. */
export function serverSecrets(kubeconfig: string): ClusterInputs['secrets'] {
  return { auth: { token: `${SERVER_BEARER}\n` }, hmac: { key: 'k'.repeat(64) }, kube: { config: kubeconfig } };
}

/** `podman run -e CLI_MCP_… -v <kubeconfig>` of the controller image, as a pod: no command, so ENTRYPOINT + CMD run. */
export function controllerPod(namespace: string, args?: string[]): PodUnderTest {
  const env = Object.entries({
    CLI_MCP_KUBECONFIG: '/etc/cli-mcp/kube/config',
    CLI_MCP_NAMESPACE: namespace,
    CLI_MCP_INSTANCE_NAME: 'ship',
    CLI_MCP_SANDBOX_IMAGE: 'cli-mcp-sandbox:test',
    CLI_MCP_KUBECONFIG_SECRET: 'investigation',
    CLI_MCP_SANDBOX_SERVICE_ACCOUNT: 'sandbox',
  }).map(([name, value]) => ({ name, value }));
  const container: V1Container = { name: 'controller', args, env, volumeMounts: [{ name: 'kube', mountPath: '/etc/cli-mcp/kube' }] };
  return { pod: { containers: [container], volumes: [{ name: 'kube', secret: { secretName: 'kube' } }] }, container };
}

/**
 * `podman run -e CLI_MCP_… -v …` of the egress gateway image, as a pod: no command, so the ENTRYPOINT runs with the
 * flags from env, the routes file and its own kubeconfig mounted (docs/egress.md "Kubernetes").
 */
export function egressPod(namespace: string): PodUnderTest {
  const env = Object.entries({
    CLI_MCP_KUBECONFIG: '/etc/cli-mcp/kube/config',
    CLI_MCP_NAMESPACE: namespace,
    CLI_MCP_INSTANCE_NAME: 'ship',
    CLI_MCP_ROUTES_FILE: '/etc/cli-mcp/routes/routes.json',
    CLI_MCP_CA_SECRET: 'ship-egress-ca',
    CLI_MCP_SANDBOX_CONFIGMAP: 'ship-egress-sandbox',
    CLI_MCP_SANDBOX_PROXY_URL: `http://ship-egress.${namespace}.svc:3128`,
  }).map(([name, value]) => ({ name, value }));
  const container: V1Container = {
    name: 'egress', env,
    volumeMounts: [{ name: 'kube', mountPath: '/etc/cli-mcp/kube' }, { name: 'routes', mountPath: '/etc/cli-mcp/routes' }],
  };
  return { pod: { containers: [container], volumes: [{ name: 'kube', secret: { secretName: 'kube' } }, { name: 'routes', secret: { secretName: 'routes' } }] }, container };
}

/** The session pod libs/podspec really builds for the sandbox image (env from the session Secret, emptyDirs). */
export function sandboxPod(): PodUnderTest & { tokenSecret: string; probe: string[] } {
  const config = validateSandboxPodConfig({
    namespace: 'ship', instanceName: 'ship', image: 'cli-mcp-sandbox:test', serviceAccountName: 'sandbox', kubeconfigSecret: 'investigation',
  });
  if (!config.ok) throw new Error(config.errors.join('; '));
  const pod = buildSessionPod(config.config, 'ship', 'ship-image', new Date()).spec!;
  const container = pod.containers[0]!;
  const tokenSecret = container.env!.find((e) => e.name === 'SANDBOX_AUTH_TOKEN')!.valueFrom!.secretKeyRef!.name!;
  return { pod, container, tokenSecret, probe: container.readinessProbe!.exec!.command! };
}

/** The Secrets a session pod mounts; the kubeconfig points at the dev cluster when one is given. */
export function sandboxSecrets(tokenSecret: string, kubeconfig = 'apiVersion: v1\nkind: Config\n'): ClusterInputs['secrets'] {
  return { [tokenSecret]: { token: SANDBOX_TOKEN }, investigation: { kubeconfig } };
}
