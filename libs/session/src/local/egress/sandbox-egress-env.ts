import type { ViewFile, ViewMount } from '../sandbox-view.js';

/** Where a proxy sandbox finds its egress (read-only, beside the agent's files). */
export const SANDBOX_EGRESS_DIR = '/.cli-mcp/egress';
export const SANDBOX_EGRESS_SOCKET = `${SANDBOX_EGRESS_DIR}/gateway.sock`;
/** The gateway CA alone (for variables that add to a tool's own roots). */
export const SANDBOX_GATEWAY_CA = `${SANDBOX_EGRESS_DIR}/gateway-ca.pem`;
/** The host's system roots plus the gateway CA (for variables that replace a tool's roots). */
export const SANDBOX_CA_BUNDLE = `${SANDBOX_EGRESS_DIR}/ca-bundle.pem`;
/**
 * The dummy kubeconfig: the sandbox's own writable copy in its private /run, so `kubectl config use-context` and
 * `set-context` work (kubectl writes the file in place and a lock file beside it).
 */
export const SANDBOX_KUBECONFIG = '/run/cli-mcp/kubeconfig';
/** The relay's loopback port, the sandbox's `HTTP_PROXY` (the agent relays it, apps/sandbox-agent egress-relay.ts). */
export const EGRESS_RELAY_PORT = 3128;
export const RELAY_URL = `http://127.0.0.1:${EGRESS_RELAY_PORT}`;

/** Where distributions keep their CA bundle: the one list, with the Kubernetes sandbox's (libs/podspec). */
export { SYSTEM_CA_BUNDLES } from '@cli-mcp/podspec';

export interface SandboxEgressInput {
  gatewayCaPem: string;
  /** The host's CA bundle, when one was found. */
  systemBundle?: string;
  /** The dummy kubeconfig, with `--egress-kubeconfig`. */
  kubeconfig?: string;
}

/**
 * What every proxy sandbox gets (C-EGR-1, C-EGR-5). Proxy variables in both cases, since tools read one or the
 * other; `NO_PROXY` names loopback only, so nothing but a command's own local servers bypasses the relay. Every
 * TLS connection out is terminated by the gateway, so the CA variables must name its CA: those that *replace* a
 * tool's roots (`SSL_CERT_FILE`, `REQUESTS_CA_BUNDLE`, `CURL_CA_BUNDLE`, `GIT_SSL_CAINFO`) get the host's system
 * roots plus the gateway CA, so a tool that also checks something offline (a signature, a local TLS server) keeps
 * working; `NODE_EXTRA_CA_CERTS` adds to Node's own roots and gets the gateway CA alone. The system roots grant
 * nothing: the sandbox reaches no server but the gateway.
 */
export function sandboxEgressEnv(input: SandboxEgressInput): { env: Record<string, string>; agentEnv: Record<string, string>; files: ViewFile[] } {
  const proxy = RELAY_URL;
  const noProxy = 'localhost,127.0.0.1,::1';
  const bundle = input.systemBundle === undefined ? input.gatewayCaPem : `${input.systemBundle.trimEnd()}\n${input.gatewayCaPem}`;
  const env: Record<string, string> = {
    HTTP_PROXY: proxy, HTTPS_PROXY: proxy, http_proxy: proxy, https_proxy: proxy, NO_PROXY: noProxy, no_proxy: noProxy,
    SSL_CERT_FILE: SANDBOX_CA_BUNDLE, REQUESTS_CA_BUNDLE: SANDBOX_CA_BUNDLE, CURL_CA_BUNDLE: SANDBOX_CA_BUNDLE, GIT_SSL_CAINFO: SANDBOX_CA_BUNDLE,
    NODE_EXTRA_CA_CERTS: SANDBOX_GATEWAY_CA,
  };
  const files: ViewFile[] = [{ dest: SANDBOX_GATEWAY_CA, content: input.gatewayCaPem }, { dest: SANDBOX_CA_BUNDLE, content: bundle }];
  if (input.kubeconfig !== undefined) {
    env.KUBECONFIG = SANDBOX_KUBECONFIG;
    files.push({ dest: SANDBOX_KUBECONFIG, content: input.kubeconfig, writable: true });
  }
  return { env, agentEnv: { SANDBOX_EGRESS_SOCKET, SANDBOX_EGRESS_PORT: String(EGRESS_RELAY_PORT) }, files };
}

/** The per-sandbox mount: the gateway socket, read-only (connect() works; nothing can replace it). */
export function egressSocketMount(hostPath: string): ViewMount {
  return { kind: 'ro-bind', source: hostPath, dest: SANDBOX_EGRESS_SOCKET };
}
