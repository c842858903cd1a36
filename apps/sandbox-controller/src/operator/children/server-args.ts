import type { ResolvedInstance } from '../spec/resolve-instance.js';

/** Port of the MCP server in its pod (and of its Service). */
export const SERVER_PORT = 8080;
/** Where the server container mounts the HMAC key (`key`) and the bearer token (`token`). */
export const HMAC_KEY_PATH = '/etc/cli-mcp/hmac/key';
export const AUTH_TOKEN_PATH = '/etc/cli-mcp/auth/token';
/** Where the server container mounts `cli-mcp-<name>-tls` (`tls.crt`, `tls.key`) when it serves HTTPS. */
export const TLS_DIR = '/etc/cli-mcp/tls';

/**
 * The MCP server's command line for an instance (C-OP-3): the flags `cli-mcp-server --help` lists today, the Go
 * operator's planned set (Go §7.3: transport, namespace, instance, sandbox image, HMAC key file, kubeconfig
 * Secret, sandbox ServiceAccount, resources, pull policy, env) plus this project's bearer, Host list, command
 * timeouts and yield point. Never `--idle-timeout` or `--warm-pool-size`: the operator runs the pool and GC.
 * The sandbox settings are written out in full, so the server builds exactly the pod configuration the operator
 * resolved and the pool pods' spec hash matches the server's (C-CTL-2). `test/integration/operator/server-args`
 * starts the built server with these args and compares.
 */
export function serverArgs(instance: ResolvedInstance, serviceName: string, tls = false): string[] {
  const pod = instance.podConfig;
  const args = [
    '--transport=http',
    `--address=0.0.0.0:${SERVER_PORT}`,
    `--auth-token-file=${AUTH_TOKEN_PATH}`,
    ...(tls ? [`--tls-cert-file=${TLS_DIR}/tls.crt`, `--tls-key-file=${TLS_DIR}/tls.key`] : []),
    `--allowed-hosts=${allowedHosts(serviceName, pod.namespace).join(',')}`,
    '--backend=kubernetes',
    `--namespace=${pod.namespace}`,
    `--instance-name=${pod.instanceName}`,
    `--hmac-key-file=${HMAC_KEY_PATH}`,
    `--sandbox-image=${pod.image}`,
    `--kubeconfig-secret=${pod.kubeconfigSecret}`,
    `--sandbox-service-account=${pod.serviceAccountName}`,
    `--sandbox-cpu-request=${pod.resources.cpuRequest}`,
    `--sandbox-cpu-limit=${pod.resources.cpuLimit}`,
    `--sandbox-memory-request=${pod.resources.memoryRequest}`,
    `--sandbox-memory-limit=${pod.resources.memoryLimit}`,
    `--max-timeout=${pod.maxTimeoutSeconds}s`,
    `--default-timeout=${pod.defaultTimeoutSeconds}s`,
  ];
  // spec.proxy (C-EGR-1, C-EGR-6): the server builds egress sandbox pods and claims or creates none while the gate is shut.
  if (pod.egressGateway === true) args.push('--egress-gateway', `--sandbox-dns=${pod.sandboxDns ?? 'none'}`);
  if (pod.imagePullPolicy !== undefined) args.push(`--sandbox-image-pull-policy=${pod.imagePullPolicy}`);
  if (pod.env.length > 0) args.push(`--sandbox-env=${JSON.stringify(pod.env)}`);
  if (instance.yieldAfter !== undefined) args.push(`--yield-after=${instance.yieldAfter}`);
  // The kubelet expands $(VAR) in args and turns $$ into $: doubling every $ passes user text through unchanged.
  return args.map((arg) => arg.replace(/\$/g, '$$$$'));
}

/** The Service's DNS names clients use as Host (C-MCP-8); probes carry the pod IP and are exempt. */
export function allowedHosts(serviceName: string, namespace: string): string[] {
  return [serviceName, `${serviceName}.${namespace}`, `${serviceName}.${namespace}.svc`, `${serviceName}.${namespace}.svc.cluster.local`];
}
