/**
 * Test support for the Kubernetes backend's unit specs (never imported by production code): a STRICT fake of
 * the `KubeApi` port — a call without a handler fails the call and is recorded in `unexpected` — a fake clock,
 * a strict agent and pod/error fixtures.
 */
import type { V1Pod, V1Secret } from '@kubernetes/client-node';
import { AGENT_ERROR_WIRE, AgentError, AgentErrorCode, type AgentWireCode, type HealthResponse, type OutputResponse } from '@cli-mcp/agent-client';
import { INSTANCE_LABEL, COMPONENT_LABEL, SANDBOX_COMPONENT, SESSION_ID_LABEL, type SandboxPodConfig, validateSandboxPodConfig } from '@cli-mcp/podspec';
import { type DeletePreconditions, type KubeApi, type PodList, type PodListQuery, type PodMergePatch, type PodWatchEnd, KubeError } from '@cli-mcp/kube';

export interface KubeCalls {
  listPods: (query: PodListQuery, signal: AbortSignal) => Promise<PodList>;
  getPod: (name: string, signal: AbortSignal) => Promise<V1Pod>;
  createPod: (pod: V1Pod, signal: AbortSignal) => Promise<V1Pod>;
  mergePatchPod: (name: string, patch: PodMergePatch, signal: AbortSignal) => Promise<V1Pod>;
  deletePod: (name: string, signal: AbortSignal, preconditions?: DeletePreconditions) => Promise<void>;
  watchPodUntil: (name: string, resourceVersion: string | undefined, until: (pod: V1Pod) => boolean, signal: AbortSignal) => Promise<PodWatchEnd>;
  createSecret: (secret: V1Secret, signal: AbortSignal) => Promise<void>;
  deleteSecret: (name: string, signal: AbortSignal) => Promise<void>;
}

export type KubeMethod = keyof KubeCalls;

export interface RecordedCall {
  method: KubeMethod;
  args: unknown[];
}

export class StrictKubeApi implements KubeApi {
  readonly calls: RecordedCall[] = [];
  readonly unexpected: string[] = [];
  private readonly handlers: Partial<KubeCalls> = {};

  constructor(readonly namespace = 'cli-mcp') {}

  on<K extends KubeMethod>(method: K, handler: KubeCalls[K]): this {
    this.handlers[method] = handler;
    return this;
  }

  /** The handler currently installed for `method` (to wrap it). */
  handler<K extends KubeMethod>(method: K): KubeCalls[K] {
    const current = this.handlers[method];
    if (!current) throw new Error(`no handler for ${method}`);
    return current;
  }

  callsOf<K extends KubeMethod>(method: K): Parameters<KubeCalls[K]>[] {
    return this.calls.filter((c) => c.method === method).map((c) => c.args as Parameters<KubeCalls[K]>);
  }

  /** `method name` per call, in order (for protocol-order assertions). */
  get sequence(): string[] {
    return this.calls.map((c) => c.method);
  }

  listPods(query: PodListQuery, signal: AbortSignal): Promise<PodList> {
    return this.invoke('listPods', [query, signal]);
  }
  getPod(name: string, signal: AbortSignal): Promise<V1Pod> {
    return this.invoke('getPod', [name, signal]);
  }
  createPod(pod: V1Pod, signal: AbortSignal): Promise<V1Pod> {
    return this.invoke('createPod', [pod, signal]);
  }
  mergePatchPod(name: string, patch: PodMergePatch, signal: AbortSignal): Promise<V1Pod> {
    return this.invoke('mergePatchPod', [name, patch, signal]);
  }
  deletePod(name: string, signal: AbortSignal, preconditions?: DeletePreconditions): Promise<void> {
    return this.invoke('deletePod', preconditions === undefined ? [name, signal] : [name, signal, preconditions]);
  }
  watchPodUntil(name: string, resourceVersion: string | undefined, until: (pod: V1Pod) => boolean, signal: AbortSignal): Promise<PodWatchEnd> {
    return this.invoke('watchPodUntil', [name, resourceVersion, until, signal]);
  }
  createSecret(secret: V1Secret, signal: AbortSignal): Promise<void> {
    return this.invoke('createSecret', [secret, signal]);
  }
  deleteSecret(name: string, signal: AbortSignal): Promise<void> {
    return this.invoke('deleteSecret', [name, signal]);
  }

  private invoke<K extends KubeMethod>(method: K, args: unknown[]): ReturnType<KubeCalls[K]> {
    this.calls.push({ method, args });
    const handler = this.handlers[method] as ((...a: unknown[]) => ReturnType<KubeCalls[K]>) | undefined;
    if (!handler) {
      this.unexpected.push(method);
      return Promise.reject(new Error(`unexpected KubeApi call ${method}`)) as ReturnType<KubeCalls[K]>;
    }
    return Promise.resolve().then((): unknown => handler(...args)) as ReturnType<KubeCalls[K]>;
  }
}

/** Strict fake of the agent's `/assign` and of `/output` (the token check after an ambiguous assign). */
export class StrictAssignAgent {
  readonly calls: Array<{ baseUrl: string; token: string; signal?: AbortSignal }> = [];
  readonly outputCalls: Array<{ baseUrl: string; token: string; requestId?: string }> = [];
  unexpected = 0;
  private handler?: (baseUrl: string, token: string, signal?: AbortSignal) => Promise<void>;
  private outputHandler?: (baseUrl: string, token: string) => Promise<OutputResponse>;
  readonly healthCalls: string[] = [];
  private healthHandler?: (baseUrl: string, signal?: AbortSignal) => Promise<HealthResponse>;

  /** Answers the direct readiness probe's `GET /health` (agent-probe.ts); without a handler a probe is unexpected. */
  onHealth(handler: (baseUrl: string, signal?: AbortSignal) => Promise<HealthResponse>): this {
    this.healthHandler = handler;
    return this;
  }

  health(baseUrl: string, signal?: AbortSignal): Promise<HealthResponse> {
    this.healthCalls.push(baseUrl);
    const handler = this.healthHandler;
    if (!handler) {
      this.unexpected++;
      return Promise.reject(new Error('unexpected health'));
    }
    return Promise.resolve().then(() => handler(baseUrl, signal));
  }

  onAssign(handler: (baseUrl: string, token: string, signal?: AbortSignal) => Promise<void>): this {
    this.handler = handler;
    return this;
  }

  /** Answers `/output`: e.g. `{running: false}` for the token the agent holds, a 401 AgentError for another. */
  onOutput(handler: (baseUrl: string, token: string) => Promise<OutputResponse>): this {
    this.outputHandler = handler;
    return this;
  }

  output(baseUrl: string, token: string, requestId?: string): Promise<OutputResponse> {
    this.outputCalls.push({ baseUrl, token, requestId });
    if (!this.outputHandler) {
      this.unexpected++;
      return Promise.reject(new Error('unexpected output'));
    }
    return Promise.resolve().then(() => (this.outputHandler as (u: string, t: string) => Promise<OutputResponse>)(baseUrl, token));
  }

  assign(baseUrl: string, token: string, signal?: AbortSignal): Promise<void> {
    this.calls.push({ baseUrl, token, signal });
    if (!this.handler) {
      this.unexpected++;
      return Promise.reject(new Error('unexpected assign'));
    }
    return Promise.resolve().then(() => this.handler?.(baseUrl, token, signal));
  }
}

// One fake clock for every libs/session unit test.
export { FakeClock } from '../../../test/fakes.js';

export const NAMESPACE = 'cli-mcp';
export const INSTANCE = 'oc';

export function testPodConfig(overrides: { instanceName?: string } = {}): SandboxPodConfig {
  const result = validateSandboxPodConfig({
    namespace: NAMESPACE,
    instanceName: overrides.instanceName ?? INSTANCE,
    image: 'quay.io/codeready-toolchain/cli-mcp-sandbox:test',
    serviceAccountName: 'cli-mcp-oc-sandbox',
    kubeconfigSecret: 'cli-mcp-oc-kubeconfig',
  });
  if (!result.ok) throw new Error(result.errors.join('; '));
  return result.config;
}

export interface PodFixture {
  name: string;
  session?: string;
  instance?: string;
  phase?: string;
  ready?: boolean;
  ip?: string;
  created?: string;
  rv?: string;
  uid?: string;
  deleting?: boolean;
  /** The container runs (phase Running, an IP, a running container status) whatever `ready` says. */
  started?: boolean;
}

/** A pod as listed from the API. Default: Running, Ready, with an IP. */
export function pod(fixture: PodFixture): V1Pod {
  const ready = fixture.ready ?? true;
  const labels: Record<string, string> = { [INSTANCE_LABEL]: fixture.instance ?? INSTANCE, [COMPONENT_LABEL]: SANDBOX_COMPONENT };
  if (fixture.session) labels[SESSION_ID_LABEL] = fixture.session;
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: fixture.name,
      namespace: NAMESPACE,
      uid: fixture.uid ?? `uid-${fixture.name}`,
      resourceVersion: fixture.rv ?? '10',
      labels,
      creationTimestamp: new Date(fixture.created ?? '2026-07-29T10:00:00Z'),
      ...(fixture.deleting ? { deletionTimestamp: new Date('2026-07-29T11:00:00Z') } : {}),
    },
    status: {
      phase: fixture.phase ?? (ready || fixture.started ? 'Running' : 'Pending'),
      podIP: fixture.ip ?? (ready || fixture.started ? '10.0.0.1' : undefined),
      conditions: [{ type: 'Ready', status: ready ? 'True' : 'False' }],
      ...(fixture.started ? { containerStatuses: [{ name: 'sandbox', image: 'sandbox', imageID: '', ready, restartCount: 0, state: { running: {} } }] } : {}),
    },
  };
}

export const kubeErrors = {
  notFound: (what = 'pods "x"') => new KubeError(`${what} not found`, 404, 'NotFound'),
  alreadyExists: (what = 'pods "x"') => new KubeError(`${what} already exists`, 409, 'AlreadyExists'),
  conflict: () => new KubeError('Operation cannot be fulfilled on pods "x": the object has been modified', 409, 'Conflict'),
  internal: () => new KubeError('Internal error occurred: injected fault', 500, 'InternalError'),
  refused: () => new KubeError('request to http://127.0.0.1:1/api/v1/namespaces/cli-mcp/pods failed, reason: connect ECONNREFUSED 127.0.0.1:1', undefined, undefined),
};

export const agentErrors = {
  /** The agent answered `/assign` with `code` (its status from the one table). */
  status: (code: AgentWireCode, message: string = AGENT_ERROR_WIRE[code].message) =>
    new AgentError(code, `unexpected status ${AGENT_ERROR_WIRE[code].status}`, { op: 'assign', url: 'http://10.0.0.1:8090/assign', status: AGENT_ERROR_WIRE[code].status, agentMessage: message }),
  /** `/output` with a token the agent does not hold. */
  unauthorized: () => new AgentError(AgentErrorCode.Unauthorized, 'unexpected status 401', { op: 'output', url: 'http://10.0.0.1:8090/output', status: 401, agentMessage: 'unauthorized' }),
  /** No response within the control timeout (the request may have been processed). */
  timeout: () => new AgentError(AgentErrorCode.Network, 'no response within 10000 ms', { op: 'assign', url: 'http://10.0.0.1:8090/assign' }),
  aborted: () => new AgentError(AgentErrorCode.Aborted, 'request aborted', { op: 'assign', url: 'http://10.0.0.1:8090/assign' }),
};

/** Resolves once pending promise callbacks have run (lets fire-and-forget work settle without sleeping). */
export async function flush(rounds = 10): Promise<void> {
  for (let i = 0; i < rounds; i++) await new Promise<void>((resolve) => setImmediate(resolve));
}
