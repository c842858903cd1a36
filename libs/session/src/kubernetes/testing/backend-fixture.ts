/** Builds a `KubernetesBackend` over the strict fakes for unit specs (test support only). */
import type { V1Pod } from '@kubernetes/client-node';
import { deriveSessionToken } from '@cli-mcp/auth';
import type { SandboxPodConfig } from '@cli-mcp/podspec';
import { KubernetesBackend } from '../kubernetes-backend.js';
import type { KubernetesBackendLogger, KubernetesBackendOptions } from '../kubernetes-backend.options.js';
import type { PodListQuery, PodWatchEnd } from '@cli-mcp/kube';
import { FakeClock, StrictAssignAgent, StrictKubeApi, testPodConfig } from './strict-kube-api.js';

export const SESSION = 'inv-abc-123';
export const HMAC_KEY = Buffer.from('unit-test-hmac-key');
export const TOKEN = deriveSessionToken(HMAC_KEY, SESSION);
export const NOW = new Date('2026-07-29T17:38:22.789Z');
export const NOW_STAMP = '2026-07-29T17:38:22Z';

export interface LogLine {
  level: 'debug' | 'info' | 'warn';
  message: string;
  fields?: Record<string, unknown>;
}

export interface Fixture {
  api: StrictKubeApi;
  agent: StrictAssignAgent;
  clock: FakeClock;
  cfg: SandboxPodConfig;
  logs: LogLine[];
  sut: KubernetesBackend;
}

export function backendFixture(options: { readyTimeoutMs?: number; activityIntervalMs?: number; instanceName?: string; egressGate?: KubernetesBackendOptions['egressGate']; podConfig?: Partial<SandboxPodConfig> } = {}): Fixture {
  const api = new StrictKubeApi();
  const agent = new StrictAssignAgent();
  const clock = new FakeClock();
  const cfg: SandboxPodConfig = { ...testPodConfig({ instanceName: options.instanceName }), ...options.podConfig };
  const logs: LogLine[] = [];
  const logger: KubernetesBackendLogger = {
    debug: (message, fields) => logs.push({ level: 'debug', message, fields }),
    info: (message, fields) => logs.push({ level: 'info', message, fields }),
    warn: (message, fields) => logs.push({ level: 'warn', message, fields }),
  };
  const sut = new KubernetesBackend({
    api,
    agentClient: agent,
    hmacKey: HMAC_KEY,
    podConfig: cfg,
    clock,
    wallClock: () => NOW,
    logger,
    readyTimeoutMs: options.readyTimeoutMs ?? 60_000,
    activityIntervalMs: options.activityIntervalMs,
    egressGate: options.egressGate,
  });
  return { api, agent, clock, cfg, logs, sut };
}

/** Which selector a list used: the session's pods, the unassigned pods, or something else (health). */
export function listKind(query: PodListQuery): 'assigned' | 'unassigned' | 'other' {
  const selector = query.labelSelector ?? '';
  if (selector.includes('!cli-mcp.redhat.com/session-id')) return 'unassigned';
  if (selector.includes('cli-mcp.redhat.com/session-id=')) return 'assigned';
  return 'other';
}

/** `listPods` handler answering per selector kind. */
export function lists(answers: { assigned?: V1Pod[] | (() => V1Pod[]); unassigned?: V1Pod[] | (() => V1Pod[]) }) {
  return async (query: PodListQuery) => {
    const kind = listKind(query);
    const answer = kind === 'assigned' ? answers.assigned : kind === 'unassigned' ? answers.unassigned : undefined;
    if (answer === undefined) throw new Error(`unexpected list (${query.labelSelector})`);
    return { items: typeof answer === 'function' ? answer() : answer, resourceVersion: '100' };
  };
}

/** A watch that ends only when its signal aborts. */
export function hangingWatch(_name: string, _rv: string | undefined, _until: (p: V1Pod) => boolean, signal: AbortSignal): Promise<PodWatchEnd> {
  return new Promise((_, reject) => signal.addEventListener('abort', () => reject(new Error('request aborted')), { once: true }));
}

/** The created pod as the API would return it (with a resourceVersion, Pending). */
export function asCreated(pod: V1Pod, rv = '200'): V1Pod {
  return { ...pod, metadata: { ...pod.metadata, uid: `uid-${pod.metadata?.name}`, resourceVersion: rv }, status: { phase: 'Pending' } };
}

/** The same pod Ready with an IP. */
export function asReady(pod: V1Pod, ip = '10.0.0.9'): V1Pod {
  return { ...pod, status: { phase: 'Running', podIP: ip, conditions: [{ type: 'Ready', status: 'True' }] } };
}

/** Filters pods by an equality/existence label selector (`k=v`, `!k`), as the API server would. */
export function matching(pods: V1Pod[], selector: string | undefined): V1Pod[] {
  const terms = (selector ?? '').split(',').filter((t) => t !== '');
  return pods.filter((pod) => {
    const labels = pod.metadata?.labels ?? {};
    return terms.every((term) => {
      if (term.startsWith('!')) return !(term.slice(1) in labels);
      const [key, value] = term.split('=') as [string, string];
      return labels[key] === value;
    });
  });
}

/** `listPods` handler over a mutable pod array, honouring the selector. */
export function listFrom(pods: () => V1Pod[]) {
  return async (query: PodListQuery) => ({ items: matching(pods(), query.labelSelector), resourceVersion: '100' });
}
