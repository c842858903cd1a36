import type { ViewFile } from '../sandbox-view.js';

/**
 * The egress of `--local-network proxy` sandboxes (docs/egress.md, C-EGR-1): what every sandbox is given, and one
 * gateway socket per sandbox. The implementation (local-egress.ts) is loaded only when a server runs with it.
 */
export interface LocalEgress {
  /** Added to every sandbox's environment: the proxy and CA-bundle variables, `KUBECONFIG` with a kubeconfig. */
  readonly sandboxEnv: Readonly<Record<string, string>>;
  /** The agent's relay settings (`SANDBOX_EGRESS_SOCKET`, `SANDBOX_EGRESS_PORT`). */
  readonly agentEnv: Readonly<Record<string, string>>;
  /** The generated files every sandbox gets: the gateway CA, the CA bundle, the dummy kubeconfig. */
  readonly files: readonly ViewFile[];
  /** For `/health` and the start log: the routes (hosts and kinds, never a credential) and the audit file. */
  readonly report: EgressReport;
  /** Binds one sandbox's gateway socket, in a directory of this server's that no sandbox sees. */
  open(): Promise<SandboxEgress>;
  /**
   * The session ended (DELETE, idle reap): the gateway refuses its traffic and cuts its open connections now, and
   * its sandbox's socket closes (C-EGR-6).
   */
  revoke(sessionId: string): Promise<void>;
  /** Server stop: every sandbox's egress ends now, then the gateway and the audit file close. */
  close(): Promise<void>;
}

export interface EgressReport {
  readonly routes: readonly string[];
  readonly audit_log: string;
}

/** One sandbox's gateway socket: its identity at the gateway is the session it is assigned to. */
export interface SandboxEgress {
  /** Host path of the socket, bind-mounted read-only into the sandbox at `SANDBOX_EGRESS_SOCKET`. */
  readonly hostPath: string;
  /** From now on the sandbox's connections are this session's (a warm sandbox has none until it is claimed). */
  assign(sessionId: string): void;
  /** The sandbox is gone: the socket closes and its path is removed. Idempotent. */
  close(): Promise<void>;
}
