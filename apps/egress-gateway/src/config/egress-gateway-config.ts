import type { LogLevelName } from '@cli-mcp/common';
import type { Kubeconfig, RouteSpec } from '@cli-mcp/egress';

/** The one validated configuration of `cli-mcp-egress` (C-CFG-1). Nothing else reads argv, env or the files. */
export interface EgressGatewayConfig {
  readonly version: string;
  readonly logLevel: LogLevelName;
  readonly namespace: string;
  readonly instanceName: string;
  /** This process's own API access (`--kubeconfig`); undefined = in-cluster. */
  readonly kubeconfig: string | undefined;
  readonly proxyPort: number;
  readonly adminPort: number;
  /** Every route: the allow-list of `--routes-file`, then the clusters of `--kubeconfig-file`. */
  readonly routes: readonly RouteSpec[];
  /** `--routes-file` as given: a refused host's 403 names it (C-EGR-2). */
  readonly routesFile: string;
  /** The parsed investigation kubeconfig (`--kubeconfig-file`), for the sandboxes' dummy copy. */
  readonly investigation: { readonly path: string; readonly config: Kubeconfig } | undefined;
  readonly caSecret: string;
  readonly sandboxConfigMap: string;
  readonly sandboxProxyUrl: string;
}
