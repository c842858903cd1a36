/**
 * Integration harness of the Kubernetes backend: the fake API server + kubelet simulator (libs/testing) running
 * REAL sandbox agents, and any number of "replicas" — each a real `SessionManager` over a real
 * `KubernetesBackend` on the real client-node adapter, sharing the one fake API server.
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { AgentClient } from '@cli-mcp/agent-client';
import { SESSION_ID_LABEL, buildWarmPod, validateSandboxPodConfig, warmPodName, type RawSandboxPodConfig, type SandboxPodConfig } from '@cli-mcp/podspec';
import { KubernetesBackend, SessionManager, SessionMetrics, type KubernetesBackendLogger } from '@cli-mcp/session';
import { createKubernetesBackend } from '@cli-mcp/session/client-node';
import { PODS, SECRETS, startFakeCluster, type FakeCluster, type FakeClusterOptions, type KubeletOptions, type KubeObject } from '@cli-mcp/testing';
import { randomBytes } from 'node:crypto';
import { Registry } from 'prom-client';

export const NAMESPACE = 'cli-mcp';
export const INSTANCE = 'oc';
export const KUBECONFIG_SECRET = 'cli-mcp-oc-kubeconfig';
export const HMAC_KEY = Buffer.from('integration-test-hmac-key-0123456789abcdef');

const AGENT_ENTRY = fileURLToPath(new URL('../../../../dist/sandbox-agent/main.js', import.meta.url));

/** Why the suite cannot run here (the problem for `describeWhenReady`, test/support/prerequisites.ts), or undefined. */
export const skipReason: string | undefined = existsSync(AGENT_ENTRY)
  ? undefined
  : `the sandbox agent is not built (${AGENT_ENTRY}); run: node scripts/build.mjs sandbox-agent`;

/** Probe delays ÷ 20 (1 s initial delay → 50 ms): pods are Ready shortly after the agent listens. */
export const FAST_KUBELET: KubeletOptions = { speedup: 20, restartBackoffMs: 200, maxTerminationGraceMs: 2_000, stopGraceMs: 1_000 };

export function podConfig(overrides: RawSandboxPodConfig = {}): SandboxPodConfig {
  const result = validateSandboxPodConfig({
    namespace: NAMESPACE,
    instanceName: INSTANCE,
    image: 'quay.io/codeready-toolchain/cli-mcp-sandbox:test',
    serviceAccountName: 'cli-mcp-oc-sandbox',
    kubeconfigSecret: KUBECONFIG_SECRET,
    terminationGracePeriodSeconds: 1,
    ...overrides,
  });
  if (!result.ok) throw new Error(result.errors.join('; '));
  return result.config;
}

export interface Replica {
  manager: SessionManager;
  backend: KubernetesBackend;
  registry: Registry;
  logs: Array<{ level: string; message: string; fields?: Record<string, unknown> }>;
  stop(): Promise<void>;
}

export interface ReplicaOptions {
  readyTimeoutMs?: number;
  activityIntervalMs?: number;
  requestTimeoutMs?: number;
  cacheTtlMs?: number;
  /** Awaited before each `POST /assign` this replica sends: pauses a claim at an exact point of a race. */
  beforeAssign?: (agentUrl: string) => Promise<void>;
  /** Wall time for the annotations (a test clock that can jump, shared with a controller). */
  wallClock?: () => Date;
}

/** The real agent client, with a hook in front of `/assign` (the races' interleaving point). */
class HookedAgentClient extends AgentClient {
  constructor(private readonly beforeAssign?: (agentUrl: string) => Promise<void>) {
    super();
  }

  override async assign(baseUrl: string, token: string, signal?: AbortSignal): Promise<void> {
    await this.beforeAssign?.(baseUrl);
    return super.assign(baseUrl, token, signal);
  }
}

export interface KubeStack {
  cluster: FakeCluster;
  cfg: SandboxPodConfig;
  replica(options?: ReplicaOptions): Replica;
  /** Creates `count` unassigned warm pods straight in the store (not via HTTP: they stay out of the request log). */
  warmPods(count: number): string[];
  /** Pods (or Secrets) in the namespace, read from the store. */
  pods(): KubeObject[];
  /** The session's pods that are not being deleted. */
  livePods(session: string): KubeObject[];
  secrets(): KubeObject[];
  stop(): Promise<void>;
}

export async function startKubeStack(
  kubelet: KubeletOptions = FAST_KUBELET,
  podSettings: RawSandboxPodConfig = {},
  clusterOptions: Omit<FakeClusterOptions, 'kubelet' | 'namespace'> = {},
): Promise<KubeStack> {
  const cluster = await startFakeCluster({ ...clusterOptions, namespace: NAMESPACE, kubelet });
  const cfg = podConfig(podSettings);
  // The sandbox's own kubeconfig Secret (mounted at /config) is the operator's, not the server's: seed it.
  cluster.api.create(SECRETS, NAMESPACE, {
    apiVersion: 'v1', kind: 'Secret', metadata: { name: KUBECONFIG_SECRET }, stringData: { kubeconfig: 'apiVersion: v1\nkind: Config\n' },
  });
  const replicas: Replica[] = [];
  return {
    cluster,
    cfg,
    replica(options = {}) {
      const registry = new Registry();
      const metrics = new SessionMetrics(registry);
      const agent = new HookedAgentClient(options.beforeAssign);
      const logs: Replica['logs'] = [];
      const logger: KubernetesBackendLogger = {
        debug: (message, fields) => logs.push({ level: 'debug', message, fields }),
        info: (message, fields) => logs.push({ level: 'info', message, fields }),
        warn: (message, fields) => logs.push({ level: 'warn', message, fields }),
      };
      const backend = createKubernetesBackend({
        kubeconfigPath: cluster.kubeconfigPath,
        registry,
        agentClient: agent,
        hmacKey: HMAC_KEY,
        podConfig: cfg,
        metrics,
        logger,
        readyTimeoutMs: options.readyTimeoutMs ?? 15_000,
        activityIntervalMs: options.activityIntervalMs,
        requestTimeoutMs: options.requestTimeoutMs,
        wallClock: options.wallClock,
      });
      const manager = new SessionManager({ backend, agent, metrics, cacheTtlMs: options.cacheTtlMs });
      const replica: Replica = {
        manager, backend, registry, logs,
        async stop() {
          await manager.shutdown();
          agent.close();
        },
      };
      replicas.push(replica);
      return replica;
    },
    warmPods(count) {
      const names: string[] = [];
      for (let i = 0; i < count; i++) {
        const pod = buildWarmPod(cfg, warmPodName(INSTANCE, randomBytes), new Date());
        names.push(cluster.api.create(PODS, NAMESPACE, pod).metadata.name as string);
      }
      return names;
    },
    pods: () => cluster.store.list('pods', NAMESPACE),
    livePods: (session) => cluster.store.list('pods', NAMESPACE).filter((p) => labelOf(p, SESSION_ID_LABEL) === session && !p.metadata.deletionTimestamp),
    secrets: () => cluster.store.list('secrets', NAMESPACE).filter((s) => s.metadata.name !== KUBECONFIG_SECRET),
    async stop() {
      await Promise.all(replicas.map((r) => r.stop()));
      await cluster.stop();
    },
  };
}

/** A promise with its resolver, for "arrived here" / "go on" hand-offs between the test and a paused request. */
export function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

/** Signal helper: never aborts unless the test says so. */
export function noAbort(): AbortSignal {
  return new AbortController().signal;
}

export function labelOf(object: KubeObject, key: string): string | undefined {
  return (object.metadata.labels as Record<string, string> | undefined)?.[key];
}

/** `waitFor` predicate: the pod is Ready (condition Ready=True). */
export function isReadyPod(pod: KubeObject | undefined): boolean {
  const conditions = (pod?.['status'] as { conditions?: Array<{ type: string; status: string }> } | undefined)?.conditions ?? [];
  return conditions.some((c) => c.type === 'Ready' && c.status === 'True');
}

/** `waitFor` predicate: Ready again after `restarts` container restarts. */
export function readyAfterRestarts(restarts: number): (pod: KubeObject | undefined) => boolean {
  return (pod) => isReadyPod(pod) && JSON.stringify(pod?.['status'] ?? {}).includes(`"restartCount":${restarts}`);
}
