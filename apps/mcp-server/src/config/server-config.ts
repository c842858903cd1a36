import type { LogLevelName } from '@cli-mcp/common';
import type { SandboxPodConfig } from '@cli-mcp/podspec';
import type { KubernetesSettings } from '@cli-mcp/kube';
import type { BoundSetting, LocalEgressConfig } from '@cli-mcp/session';

export type Transport = 'stdio' | 'http';
export type BackendKind = 'local' | 'kubernetes';
export type ResultFormat = 'text' | 'json';
export type LocalIsolation = 'auto' | 'bwrap' | 'none';
export type LocalNetwork = 'auto' | 'isolated' | 'host' | 'none' | 'proxy';

/** Host names accepted in `Host`/`Origin` besides loopback ones (C-MCP-8): a list, or any (`*`). */
export type AllowedHosts = { readonly any: true } | { readonly any: false; readonly names: readonly string[] };

export interface HttpConfig {
  /** As given, for messages. */
  readonly address: string;
  /** Host to listen on (`` = all interfaces). */
  readonly host: string;
  /** 0 = ephemeral (the bound URL is logged). */
  readonly port: number;
  readonly loopback: boolean;
  /** Bearer token required on /mcp and /sessions; never logged (C-AUTH-2). */
  readonly authToken: string | undefined;
  /** Its file, hidden from bubblewrap sandboxes. */
  readonly authTokenFile: string | undefined;
  readonly allowedHosts: AllowedHosts;
  /** HTTPS (`--tls-cert-file`/`--tls-key-file`, absolute paths, checked to load); plain HTTP when absent. */
  readonly tls: TlsFiles | undefined;
}

export interface TlsFiles {
  readonly certFile: string;
  readonly keyFile: string;
}

export interface ToolConfig {
  readonly defaultTimeoutSeconds: number;
  readonly maxTimeoutSeconds: number;
  readonly resultFormat: ResultFormat;
  readonly maxOutputChars: number;
  readonly progressIntervalMs: number;
  /**
   * C-MCP-11: no call holds its request longer than this; a command still running then goes on as a background
   * job of the session shell. 0 = never (the call lasts as long as the command).
   */
  readonly yieldAfterMs: number;
  /** Sent at initialize (C-MCP-1): the built-in text or `--instructions-file`. */
  readonly instructions: string;
}

export interface LocalBackendConfig {
  readonly stateDir: string;
  /**
   * The local backend's own directory (workspaces, lock): the state dir for HTTP; for stdio a per-session
   * subdirectory `<state-dir>/stdio/<session>`, so several stdio servers (one per client window) can run at once.
   */
  readonly sandboxDir: string;
  /** `--local-reset-state`: delete what an earlier server left instead of adopting it (issue 22). */
  readonly resetState: boolean;
  /** stdio: the session id was generated, so no later process can reach its workspace again. */
  readonly stdioSessionGenerated: boolean;
  readonly isolation: LocalIsolation;
  /** `--local-network`; `auto` is already `proxy` when an egress flag was given. */
  readonly network: LocalNetwork;
  /** With `proxy`: the egress gateway's routes and audit file, checked (the kubeconfig read) at load. */
  readonly egress?: LocalEgressConfig;
  /** `--local-ro-bind`; checked against the state dir and key files by the backend at start. */
  readonly readOnlyBinds: readonly string[];
  /** `--local-max-processes`, `--local-max-memory`, `--local-max-disk`, `--local-max-output`: undefined = the default, `off` = none. */
  readonly maxProcesses?: BoundSetting;
  readonly maxMemoryBytes?: BoundSetting;
  readonly maxDiskBytes?: BoundSetting;
  readonly maxOutputBytes?: BoundSetting;
  readonly maxSessions: number;
  readonly idleTimeoutMs: number;
  readonly warmPoolSize: number;
}

/**
 * Kubernetes settings (C-K8S-9): the flags shared with the controller as read (once, `KubernetesSettings`), the
 * pod configuration validated by libs/podspec when the backend is selected, and the server's own timings.
 */
export interface KubernetesServerConfig extends Readonly<KubernetesSettings> {
  readonly podConfig: SandboxPodConfig | undefined;
  readonly activityIntervalMs: number;
}

/** The one validated configuration object of the server (C-CFG-1). Nothing else reads argv or env. */
export interface ServerConfig {
  readonly version: string;
  readonly transport: Transport;
  readonly http: HttpConfig;
  /** stdio: the session this process serves (C-MCP-7). */
  readonly stdioSessionId: string;
  readonly backend: BackendKind;
  readonly tool: ToolConfig;
  readonly cacheTtlMs: number;
  /** `--eager-acquire`: requests before the first command start acquiring the sandbox (C-MCP-13). */
  readonly eagerAcquire: boolean;
  readonly shutdownGraceMs: number;
  /** HMAC key file; `generate` = create it on first start if missing (local default). */
  readonly hmacKey: { readonly path: string; readonly generate: boolean };
  readonly local: LocalBackendConfig;
  readonly kubernetes: KubernetesServerConfig;
  /** `--ready-timeout`: how long a new sandbox of either backend may take to become ready (and eager acquisition). */
  readonly readyTimeoutMs: number;
  readonly logLevel: LogLevelName;
}
