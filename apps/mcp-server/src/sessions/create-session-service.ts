import { AgentClient } from '@cli-mcp/agent-client';
import { loadHmacKey, loadOrCreateHmacKey } from '@cli-mcp/auth';
import {
  LocalBackend,
  SessionManager,
  SessionMetrics,
  type LocalBackendLogger,
  type LocalBackendConfig,
  type SandboxBackend,
} from '@cli-mcp/session';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import type { ServerConfig } from '../config/server-config.js';
import type { SessionService } from './session-service.port.js';

/**
 * Wires the real session layer for the configured backend: HMAC key (generated into the state dir on first
 * start for `local`, never printed), agent client, backend and `SessionManager`, with the session metrics on the
 * app's registry. `kubernetes` needs a shared `--hmac-key-file` (the config loader enforces it).
 */
export async function createSessionService(config: ServerConfig, registry: Registry, logger: Logger): Promise<SessionService> {
  const log = logger.child({ component: 'sessions' });
  const key = config.hmacKey.generate ? await loadOrCreateHmacKey(config.hmacKey.path) : await loadHmacKey(config.hmacKey.path);
  if ('created' in key && key.created) log.info({ path: config.hmacKey.path }, 'generated a new HMAC key');
  if (key.warning) log.warn(key.warning);

  const metrics = new SessionMetrics(registry);
  const agent = new AgentClient();
  const backend = config.backend === 'kubernetes'
    ? await createKubernetes(config, registry, key.key, agent, metrics, log)
    : await createLocal(config, key.key, agent, metrics, registry, log);
  const manager = new SessionManager({ backend, agent, metrics, cacheTtlMs: config.cacheTtlMs });
  return {
    execute: (sessionId, request, signal) => manager.execute(sessionId, request, signal),
    // Bounded like a first command's acquisition: a sandbox that is not ready by then is not coming (C-MCP-13).
    prepare: async (sessionId) => void (await manager.prepare(sessionId, AbortSignal.timeout(config.readyTimeoutMs))),
    cancel: (sessionId, requestId) => manager.cancel(sessionId, requestId, AbortSignal.timeout(10_000)),
    // A peek that takes longer than a progress interval is not worth waiting for.
    peek: (sessionId, requestId) => manager.peek(sessionId, requestId, AbortSignal.timeout(2_000)),
    end: (sessionId, signal) => manager.end(sessionId, signal),
    checkHealth: (signal) => manager.checkHealth(signal),
    shutdown: async () => {
      await manager.shutdown();
      agent.close();
    },
  };
}

async function createKubernetes(
  config: ServerConfig, registry: Registry, hmacKey: Buffer, agentClient: AgentClient, metrics: SessionMetrics, log: Logger,
): Promise<SandboxBackend> {
  const podConfig = config.kubernetes.podConfig;
  if (!podConfig) throw new Error('kubernetes backend selected without a validated pod configuration');
  // Loaded only here: the local backend never pays for the Kubernetes client (kubernetes-client.ts).
  const { createKubernetesBackend } = await import('./kubernetes-client.js');
  const backend = createKubernetesBackend({
    kubeconfigPath: config.kubernetes.kubeconfig,
    registry,
    podConfig,
    hmacKey,
    agentClient,
    metrics,
    readyTimeoutMs: config.readyTimeoutMs,
    activityIntervalMs: config.kubernetes.activityIntervalMs,
    logger: {
      debug: (message: string, fields?: Record<string, unknown>) => log.debug(fields ?? {}, message),
      info: (message: string, fields?: Record<string, unknown>) => log.info(fields ?? {}, message),
      warn: (message: string, fields?: Record<string, unknown>) => log.warn(fields ?? {}, message),
    },
  });
  log.info({ backend: 'kubernetes', namespace: podConfig.namespace, instance: podConfig.instanceName }, 'session backend ready');
  return backend;
}

async function createLocal(
  config: ServerConfig, hmacKey: Buffer, agent: AgentClient, metrics: SessionMetrics, registry: Registry, log: Logger,
): Promise<SandboxBackend> {
  // The gateway's metrics go on the app's registry; its code is loaded only when sandboxes use it (docs/egress.md).
  const egressMetrics = config.local.network === 'proxy' ? new (await import('@cli-mcp/egress')).PromEgressMetrics(registry) : undefined;
  const backend = new LocalBackend(localBackendConfig(config, hmacKey), { agent, metrics, egressMetrics, logger: backendLogger(log) });
  // Resolve isolation and lock the state dir now, so a bad setup stops the server at boot.
  await backend.start();
  const posture = backend.posture;
  log.info({ backend: 'local', isolation: posture?.isolation, network: posture?.network, state_dir: config.local.sandboxDir }, 'session backend ready');
  return backend;
}

/** What the local backend is given from the one validated config (exported for its spec). */
export function localBackendConfig(config: ServerConfig, hmacKey: Buffer): LocalBackendConfig {
  return {
    stateDir: config.local.sandboxDir,
    hmacKey,
    isolation: config.local.isolation,
    network: config.local.network,
    egress: config.local.egress,
    resetState: config.local.resetState,
    readOnlyBinds: [...config.local.readOnlyBinds],
    maxProcesses: config.local.maxProcesses,
    maxMemoryBytes: config.local.maxMemoryBytes,
    maxDiskBytes: config.local.maxDiskBytes,
    maxOutputBytes: config.local.maxOutputBytes,
    // C-AG-14: every agent applies the server's own timeout bounds.
    defaultTimeoutSeconds: config.tool.defaultTimeoutSeconds,
    maxTimeoutSeconds: config.tool.maxTimeoutSeconds,
    idleTimeoutMs: config.local.idleTimeoutMs,
    maxSessions: config.local.maxSessions,
    warmPoolSize: config.local.warmPoolSize,
    readyTimeoutMs: config.readyTimeoutMs,
    // --local-ro-bind may never expose the server's secrets (the sandbox view holds neither file otherwise).
    secretPaths: [config.hmacKey.path, config.http.authTokenFile, config.http.tls?.keyFile].filter((path): path is string => path !== undefined),
  };
}

function backendLogger(log: Logger): LocalBackendLogger {
  return {
    info: (message, fields) => log.info(fields ?? {}, message),
    warn: (message, fields) => log.warn(fields ?? {}, message),
  };
}
