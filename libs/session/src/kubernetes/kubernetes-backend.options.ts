import type { AgentClient } from '@cli-mcp/agent-client';
import type { SandboxPodConfig } from '@cli-mcp/podspec';
import type { Clock } from '@cli-mcp/common';
import type { SessionMetrics } from '../session-metrics.js';
import type { EgressGate, KubeApi } from '@cli-mcp/kube';

/**
 * The agent calls the backend makes itself: token delivery to a claimed or restarted pod (C-K8S-4/7), `/output`
 * as a read-only check of which token an agent holds after an ambiguous `/assign` (libs/session token-delivery.ts), and
 * `/health` to learn that a starting pod's agent answers before the kubelet's next readiness probe (agent-probe.ts).
 */
export type KubernetesAgentPort = Pick<AgentClient, 'assign' | 'output' | 'health'>;

/** Structured log sink (fields never carry the token). */
export interface KubernetesBackendLogger {
  debug?(message: string, fields?: Record<string, unknown>): void;
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
}

export interface KubernetesBackendOptions {
  api: KubeApi;
  agentClient: KubernetesAgentPort;
  /** HMAC key: a session's token is HMAC(key, session id) on every replica (C-AUTH-1). */
  hmacKey: Buffer;
  /** Validated sandbox configuration (`validateSandboxPodConfig`); its namespace must equal `api.namespace`. */
  podConfig: SandboxPodConfig;
  /**
   * With `--egress-gateway`: the fail-closed gate asked before every claim and create (C-EGR-6). A session whose
   * pod already exists is not asked (its pod keeps working only through the gateway anyway).
   */
  egressGate?: Pick<EgressGate, 'check'>;
  /** `--ready-timeout`: bound on waiting for a pod to become Ready (C-K8S-5). Default 60 s. */
  readyTimeoutMs?: number;
  /**
   * Probe a starting pod's agent `/health` directly once it runs with an IP, besides watching for the kubelet's
   * Ready (issue 11; docs/kubernetes-backend.md, "Readiness"). Default true; false waits for the kubelet only.
   */
  directProbe?: boolean;
  /** `--activity-interval`: last-activity is patched at most this often per session per replica (C-K8S-6). Default 30 s. */
  activityIntervalMs?: number;
  /** Bound on each API request of an acquisition (the caller's signal applies too). Default 15 s. */
  requestTimeoutMs?: number;
  /** Bound on rollback/cleanup and activity requests, which never use the caller's signal. Default 10 s. */
  cleanupTimeoutMs?: number;
  /** Bound on the health check's list (C-HTTP-2). Default 5 s. */
  healthTimeoutMs?: number;
  /** Shared session metrics: the backend records `cli_mcp_sandbox_ready_seconds`. */
  metrics?: SessionMetrics;
  logger?: KubernetesBackendLogger;
  /** Monotonic time and timers (throttling, readiness deadline). */
  clock?: Clock;
  /** Wall time for the RFC 3339 annotations. */
  wallClock?: () => Date;
}

export const KUBERNETES_DEFAULTS = {
  readyTimeoutMs: 60_000,
  activityIntervalMs: 30_000,
  requestTimeoutMs: 15_000,
  cleanupTimeoutMs: 10_000,
  healthTimeoutMs: 5_000,
  /** Sessions remembered per replica for the recreate notice and touch throttling. */
  maxRememberedSessions: 10_000,
} as const;

export const silentLogger: KubernetesBackendLogger = { info: () => undefined, warn: () => undefined };
