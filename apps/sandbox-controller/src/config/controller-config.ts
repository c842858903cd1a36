import type { LogLevelName } from '@cli-mcp/common';
import type { SandboxPodConfig } from '@cli-mcp/podspec';

/** The one validated configuration of the controller (C-CFG-1). Nothing else reads argv or env. */
export interface ControllerConfig {
  /** One instance, configured by flags (the default; absent means this). */
  readonly mode?: 'instance';
  readonly version: string;
  readonly http: { readonly address: string; readonly host: string; readonly port: number };
  /** Holder identity in the leader Lease. */
  readonly identity: string;
  readonly kubeconfig: string | undefined;
  /** The same validated pod configuration the server builds from the same flags. */
  readonly podConfig: SandboxPodConfig;
  readonly pool: { readonly size: number; readonly shortfallGraceMs: number };
  readonly gc: { readonly idleTimeoutMs: number; readonly maxSessionAgeMs: number | undefined; readonly orphanSecretGraceMs: number };
  readonly leaseDurationMs: number;
  readonly logLevel: LogLevelName;
}

/** The validated configuration of `sandbox-controller --operator` (C-OP-3, C-CFG-1). */
export interface OperatorConfig {
  readonly mode: 'operator';
  readonly version: string;
  readonly http: { readonly address: string; readonly host: string; readonly port: number };
  readonly identity: string;
  readonly kubeconfig: string | undefined;
  readonly watchNamespace: string;
  readonly images: { readonly server: string; readonly sandbox: string; readonly egress: string | undefined };
  /** Every instance's command timeouts (server and agents), whole seconds. */
  readonly timeouts: { readonly maxTimeoutSeconds: number; readonly defaultTimeoutSeconds: number };
  readonly leaseDurationMs: number;
  readonly orphanSecretGraceMs: number;
  readonly poolShortfallGraceMs: number;
  readonly logLevel: LogLevelName;
}

/** What `sandbox-controller` runs as. */
export type SandboxControllerConfig = ControllerConfig | OperatorConfig;
