import type { ImagePullPolicy, SandboxResources } from '../sandbox-config.js';

/**
 * What the egress gateway's objects are built from (issue 20 item 3). One per instance; the manifests
 * (deploy/base) and the operator render from the same builders.
 */
export interface EgressGatewayConfig {
  readonly namespace: string;
  /** `--instance-name`: every name and label derives from it. */
  readonly instanceName: string;
  /** The `cli-mcp-egress` image. */
  readonly image: string;
  readonly imagePullPolicy?: ImagePullPolicy | undefined;
  /** The real investigation kubeconfig (`--kubeconfig-secret`, key `kubeconfig`): mounted ONLY into the gateway. */
  readonly kubeconfigSecret: string;
  readonly replicas: number;
  readonly resources: SandboxResources;
  /**
   * Where the gateway may connect besides DNS (its NetworkPolicy, C-EGR-1): the API server's addresses and ports
   * (the API server is not a pod, so a policy names it by address; `0.0.0.0/0` when unknown) — routes are enforced
   * by host at L7, the policy only narrows the ports.
   */
  readonly apiServer: { readonly cidrs: readonly string[]; readonly ports: readonly number[] };
}

/** Two replicas (a drain or a crash never leaves the sandboxes without a way out) and a PDB of one. */
export const DEFAULT_EGRESS_REPLICAS = 2;

/**
 * Footprint: the gateway is one Node process with bounded tunnels; C-EGR-8 targets ≤ 128 MiB RSS at 100 open
 * tunnels, so the limit leaves room for a burst above that.
 */
export const DEFAULT_EGRESS_RESOURCES: SandboxResources = {
  cpuRequest: '50m',
  cpuLimit: '1',
  memoryRequest: '128Mi',
  memoryLimit: '256Mi',
};

/** The API server seen from a pod: the Service port (443) and the usual endpoint port (6443), any address. */
export const DEFAULT_API_SERVER = { cidrs: ['0.0.0.0/0'], ports: [443, 6443] } as const;

/** The routes ConfigMap's document: exact `host:port` authorities (C-EGR-2). */
export interface EgressRoutesDocument {
  readonly allow: readonly string[];
}
