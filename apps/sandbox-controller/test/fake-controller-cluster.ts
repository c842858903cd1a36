/**
 * An in-memory namespace for the controller's unit specs: it implements the controller's API port (pods and
 * Secrets with uid/resourceVersion, preconditions, graceful deletion) and feeds a fake informer with the changes,
 * like the watch would. Every call is recorded; `hooks` run before a call (to force an interleaving, e.g. a claim
 * landing between a re-read and a delete) and may throw to inject an API failure.
 */
import type { V1Pod, V1Secret } from '@kubernetes/client-node';
import { KubeError } from '@cli-mcp/kube';
import type { ControllerKubeApi, Preconditions } from '../src/kube/controller-kube-api.port.js';
import type { PodChange, PodInformer } from '@cli-mcp/kube';

type Method = 'getPod' | 'createPod' | 'deletePod' | 'annotatePod' | 'listSecrets' | 'deleteSecret';

export interface RecordedCall {
  readonly method: Method;
  readonly name: string;
  readonly preconditions?: Preconditions;
}

export class FakePodInformer implements PodInformer {
  synced = true;
  problem: string | undefined = undefined;
  private readonly changeListeners = new Set<(change: PodChange) => void>();
  private readonly stateListeners = new Set<() => void>();
  /** When true, changes queue up until `deliver()` (a lagging watch). */
  lagging = false;
  private queued: PodChange[] = [];

  constructor(private readonly cache: Map<string, V1Pod>) {}

  start(): void {}
  async stop(): Promise<void> {}

  pods(): V1Pod[] {
    return [...this.cache.values()].map((pod) => structuredClone(pod));
  }

  onChange(listener: (change: PodChange) => void): () => void {
    this.changeListeners.add(listener);
    return () => this.changeListeners.delete(listener);
  }

  onStateChange(listener: () => void): () => void {
    this.stateListeners.add(listener);
    return () => this.stateListeners.delete(listener);
  }

  setState(state: { synced?: boolean; problem?: string | undefined }): void {
    if (state.synced !== undefined) this.synced = state.synced;
    if ('problem' in state) this.problem = state.problem;
    for (const listener of this.stateListeners) listener();
  }

  /** @internal The cluster changed. */
  push(change: PodChange): void {
    if (this.lagging) this.queued.push(change);
    else this.apply(change);
  }

  /** Applies the queued changes (the watch caught up). */
  deliver(): void {
    const queued = this.queued;
    this.queued = [];
    for (const change of queued) this.apply(change);
  }

  private apply(change: PodChange): void {
    const name = change.pod.metadata!.name!;
    if (change.type === 'deleted') this.cache.delete(name);
    else this.cache.set(name, structuredClone(change.pod));
    for (const listener of this.changeListeners) listener(change);
  }
}

export class FakeControllerCluster implements ControllerKubeApi {
  readonly namespace = 'cli-mcp';
  readonly pods = new Map<string, V1Pod>();
  readonly secrets = new Map<string, V1Secret>();
  readonly informer: FakePodInformer;
  readonly calls: RecordedCall[] = [];
  readonly hooks: Partial<Record<Method, (name: string) => void | Promise<void>>> = {};
  /** Deleted pods stay terminating until `finishTermination` (as with a kubelet); else they vanish at once. */
  gracefulDeletes = true;
  private version = 0;
  private uids = 0;

  /** @param now the API server's clock, for `creationTimestamp` and `deletionTimestamp`. */
  constructor(private readonly now: () => Date = () => new Date()) {
    this.informer = new FakePodInformer(new Map());
  }

  // ---- seeding and out-of-band changes (the server, the kubelet, another controller) ----

  addPod(pod: V1Pod): V1Pod {
    const stored = this.stamp(structuredClone(pod), true);
    this.pods.set(stored.metadata!.name!, stored);
    this.informer.push({ type: 'added', pod: stored });
    return stored;
  }

  /** A change made by someone else (claim, kubelet status, activity stamp). */
  mutatePod(name: string, change: (pod: V1Pod) => void): V1Pod {
    const previous = this.pods.get(name);
    if (!previous) throw new Error(`no pod ${name}`);
    const next = structuredClone(previous);
    change(next);
    const stored = this.stamp(next, false);
    this.pods.set(name, stored);
    this.informer.push({ type: 'updated', pod: stored, previous });
    return stored;
  }

  finishTermination(name: string): void {
    const pod = this.pods.get(name);
    if (!pod) return;
    this.pods.delete(name);
    this.informer.push({ type: 'deleted', pod });
  }

  addSecret(secret: V1Secret): V1Secret {
    const stored = this.stamp(structuredClone(secret), true) as V1Secret;
    this.secrets.set(stored.metadata!.name!, stored);
    return stored;
  }

  callsOf(method: Method): RecordedCall[] {
    return this.calls.filter((c) => c.method === method);
  }

  // ---- ControllerKubeApi ----

  async getPod(name: string, signal: AbortSignal): Promise<V1Pod> {
    await this.enter('getPod', name, signal);
    const pod = this.pods.get(name);
    if (!pod) throw notFound('pods', name);
    return structuredClone(pod);
  }

  async createPod(pod: V1Pod, signal: AbortSignal): Promise<V1Pod> {
    await this.enter('createPod', pod.metadata?.name ?? '', signal);
    if (this.pods.has(pod.metadata!.name!)) throw new KubeError(`pods "${pod.metadata!.name}" already exists`, 409, 'AlreadyExists');
    return structuredClone(this.addPod(pod));
  }

  async deletePod(name: string, preconditions: Preconditions, signal: AbortSignal): Promise<void> {
    await this.enter('deletePod', name, signal, preconditions);
    const pod = this.pods.get(name);
    if (!pod) throw notFound('pods', name);
    checkPreconditions('pods', name, pod, preconditions);
    if (!this.gracefulDeletes || pod.metadata?.deletionTimestamp) return this.finishTermination(name);
    this.mutatePod(name, (p) => (p.metadata!.deletionTimestamp = this.now()));
  }

  async annotatePod(name: string, annotations: Record<string, string | null>, signal: AbortSignal): Promise<V1Pod> {
    await this.enter('annotatePod', name, signal);
    if (!this.pods.has(name)) throw notFound('pods', name);
    return structuredClone(
      this.mutatePod(name, (pod) => {
        const merged: Record<string, string> = { ...(pod.metadata!.annotations ?? {}) };
        for (const [key, value] of Object.entries(annotations)) {
          if (value === null) delete merged[key];
          else merged[key] = value;
        }
        pod.metadata!.annotations = merged;
      }),
    );
  }

  async listSecrets(labelSelector: string, signal: AbortSignal): Promise<V1Secret[]> {
    await this.enter('listSecrets', labelSelector, signal);
    const wanted = labelSelector.split(',').map((term) => term.split('='));
    return [...this.secrets.values()]
      .filter((secret) => wanted.every(([key, value]) => secret.metadata?.labels?.[key!] === value))
      .map((secret) => structuredClone(secret));
  }

  async deleteSecret(name: string, preconditions: Preconditions, signal: AbortSignal): Promise<void> {
    await this.enter('deleteSecret', name, signal, preconditions);
    const secret = this.secrets.get(name);
    if (!secret) throw notFound('secrets', name);
    checkPreconditions('secrets', name, secret, preconditions);
    this.secrets.delete(name);
  }

  private async enter(method: Method, name: string, signal: AbortSignal, preconditions?: Preconditions): Promise<void> {
    this.calls.push(preconditions ? { method, name, preconditions } : { method, name });
    if (signal.aborted) throw new KubeError('request aborted', undefined, undefined);
    await this.hooks[method]?.(name);
  }

  private stamp<T extends V1Pod | V1Secret>(object: T, created: boolean): T {
    object.metadata ??= {};
    if (created) {
      object.metadata.uid = `uid-${++this.uids}`;
      object.metadata.creationTimestamp ??= this.now();
    }
    object.metadata.resourceVersion = String(++this.version);
    return object;
  }
}

function notFound(kind: string, name: string): KubeError {
  return new KubeError(`${kind} "${name}" not found`, 404, 'NotFound');
}

function checkPreconditions(kind: string, name: string, object: V1Pod | V1Secret, preconditions: Preconditions): void {
  if (object.metadata?.uid !== preconditions.uid || object.metadata?.resourceVersion !== preconditions.resourceVersion) {
    throw new KubeError(`Operation cannot be fulfilled on ${kind} "${name}": the object has been modified`, 409, 'Conflict');
  }
}
