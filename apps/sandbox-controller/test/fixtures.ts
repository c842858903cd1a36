/** Fixtures of the controller's unit specs: one sandbox config, pod shapes, a log sink, deterministic randomness. */
import type { V1Pod } from '@kubernetes/client-node';
import {
  CREATED_AT_ANNOTATION, LAST_ACTIVITY_ANNOTATION, SESSION_ID_LABEL, buildSessionPod, buildWarmPod, formatTimestamp,
  validateSandboxPodConfig, type RandomBytes, type SandboxPodConfig,
} from '@cli-mcp/podspec';
import { Registry } from 'prom-client';
import type { ControllerLogger } from '../src/controller-logger.js';
import { ControllerMetrics } from '../src/metrics/controller-metrics.js';

export const NAMESPACE = 'cli-mcp';
export const INSTANCE = 'oc';
/** Wall time of the fake clock's t = 0. */
export const WALL_START = Date.parse('2026-07-29T10:00:00Z');

export function podConfig(overrides: { image?: string; egressGateway?: boolean } = {}): SandboxPodConfig {
  const result = validateSandboxPodConfig({
    namespace: NAMESPACE, instanceName: INSTANCE, image: overrides.image ?? 'quay.io/example/sandbox:1', egressGateway: overrides.egressGateway,
    serviceAccountName: 'cli-mcp-oc-sandbox', kubeconfigSecret: 'cli-mcp-oc-kubeconfig',
  });
  if (!result.ok) throw new Error(result.errors.join('; '));
  return result.config;
}

/** Deterministic bytes 0, 1, 2 … (distinct pool pod names). */
export function countingBytes(): RandomBytes {
  let next = 0;
  return (size) => Uint8Array.from({ length: size }, () => next++ % 256);
}

/** A pool pod as the controller builds it, created at `createdAt`. */
export function poolPod(name: string, cfg = podConfig(), createdAt = new Date(WALL_START)): V1Pod {
  return buildWarmPod(cfg, name, createdAt);
}

/** A session pod as the server creates it on demand. */
export function sessionPod(sessionId: string, times: { createdAt: Date; lastActivity?: Date }, cfg = podConfig()): V1Pod {
  const pod = buildSessionPod(cfg, INSTANCE, sessionId, times.createdAt);
  if (times.lastActivity) pod.metadata!.annotations![LAST_ACTIVITY_ANNOTATION] = formatTimestamp(times.lastActivity);
  return pod;
}

/** Status writes of the kubelet. */
export function ready(pod: V1Pod, ip = '10.0.0.9'): void {
  pod.status = { phase: 'Running', podIP: ip, conditions: [{ type: 'Ready', status: 'True' }] };
}

export function crashLooping(pod: V1Pod): void {
  pod.status = { phase: 'Running', conditions: [{ type: 'Ready', status: 'False' }], containerStatuses: [{ name: 'sandbox', image: 'x', imageID: '', ready: false, restartCount: 5, state: { waiting: { reason: 'CrashLoopBackOff' } } }] };
}

export function claim(pod: V1Pod, sessionId: string, at: Date): void {
  pod.metadata!.labels![SESSION_ID_LABEL] = sessionId;
  pod.metadata!.annotations![LAST_ACTIVITY_ANNOTATION] = formatTimestamp(at);
}

export { CREATED_AT_ANNOTATION, LAST_ACTIVITY_ANNOTATION, SESSION_ID_LABEL };

export interface LogLine {
  level: 'debug' | 'info' | 'warn' | 'error';
  message: string;
  fields?: Record<string, unknown>;
}

export function recordingLogger(): ControllerLogger & { lines: LogLine[] } {
  const lines: LogLine[] = [];
  const at = (level: LogLine['level']) => (message: string, fields?: Record<string, unknown>) => lines.push({ level, message, fields });
  return { lines, debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
}

export function metrics(): { metrics: ControllerMetrics; registry: Registry } {
  const registry = new Registry();
  return { metrics: new ControllerMetrics(registry), registry };
}

/** Lets promise chains of the fakes settle (they answer in microtasks). */
export async function settle(): Promise<void> {
  for (let i = 0; i < 20; i++) await Promise.resolve();
}
