import type { LogLevelName } from '@cli-mcp/common';
import type { SandboxPodConfig } from '@cli-mcp/podspec';

/** The one validated configuration of the controller (C-CFG-1). Nothing else reads argv or env. */
export interface ControllerConfig {
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
