import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { KubeApi } from '../api/kube-api.js';
import type { ObjectStore, StoreEvent } from '../api/object-store.js';
import type { KubeObject } from '../api/types.js';
import { builtAgentCommand } from './agent-locator.js';
import type { AgentCommand } from './agent-process.js';
import { LoopbackIpPool, randomLoopbackPrefix } from './ip-pool.js';
import { removeSandboxDirs } from './pod-sandbox.js';
import { PodRuntime, type RuntimeSettings } from './pod-runtime.js';
import type { ProbeTimingOverride } from './probe.js';

/** Options of the kubelet simulator. */
export interface KubeletOptions {
  /** Node the simulated pods are bound to (`spec.nodeName`). Default `fake-node`. */
  nodeName?: string;
  /** How to start an agent. Default: `node <repo>/dist/sandbox-agent/main.js`. */
  agent?: AgentCommand;
  /** Port the agent listens on when the container declares none. Default 8090. */
  agentPort?: number;
  /** Loopback prefix of pod IPs. Default a random `127.A.B.` of this simulator's own (addresses 2…254). */
  addressPrefix?: string;
  /** Delay before a new pod is bound to the node. Default 0. */
  schedulingDelayMs?: number;
  /**
   * Speed-up factor for probe delays/periods and the restart back-off (e.g. 20: a 10 s probe period becomes
   * 500 ms). Probe timeouts are not scaled below 1 s. Default 1.
   */
  speedup?: number;
  /** Replaces every pod's readiness probe delay and/or period (real milliseconds, not divided by `speedup`). */
  readinessTiming?: ProbeTimingOverride;
  /** First restart back-off after a crash, before `speedup` (doubles per crash, capped at 300 s). Default 10 000. */
  restartBackoffMs?: number;
  /** Cap on the SIGTERM → SIGKILL wait when a pod is deleted (the pod's grace may be longer). Default 30 000. */
  maxTerminationGraceMs?: number;
  /** SIGTERM → SIGKILL wait for agents still running at `stop()`. Default 2 000. */
  stopGraceMs?: number;
  /** Directory for per-pod work directories. Default: a new temp directory (removed at `stop()`). */
  workRoot?: string;
  /** Extra environment for every agent (below the pod's own env). */
  extraEnv?: Record<string, string>;
  /** Keep matching pods Pending forever (never scheduled). */
  pendingForever?: (pod: KubeObject) => boolean;
  /** Whether a missing Secret of a secret volume blocks the start (the real behaviour). Default true. */
  requireSecretVolumes?: boolean;
  /** Receives the agents' stdout/stderr. */
  onAgentOutput?: (pod: string, stream: 'stdout' | 'stderr', text: string) => void;
}

/**
 * The kubelet (plus scheduler) of the fake cluster, in the same process as the API server: it watches pods in the
 * store, binds them to one node, runs a REAL sandbox-agent process per pod on its own loopback address,
 * interprets the readiness probe, restarts crashed agents, and carries out graceful deletion. Writes go through
 * `KubeApi.mutatePod` (not HTTP), so they never appear in the request log.
 */
export class KubeletSimulator {
  private readonly runtimes = new Map<string, PodRuntime>();
  private readonly holds = new Set<(pod: KubeObject) => boolean>();
  private readonly settings: RuntimeSettings;
  private readonly ips: LoopbackIpPool;
  private readonly ownsWorkRoot: boolean;
  private readonly stopGraceMs: number;
  /** Pod keys to reconcile → whether a Secret in their namespace changed. */
  private readonly dirty = new Map<string, boolean>();
  private flushScheduled = false;
  private unsubscribe?: () => void;
  private stopped = false;

  constructor(
    private readonly api: KubeApi,
    private readonly store: ObjectStore,
    options: KubeletOptions = {},
  ) {
    this.ownsWorkRoot = options.workRoot === undefined;
    this.settings = {
      nodeName: options.nodeName ?? 'fake-node',
      agent: options.agent ?? builtAgentCommand(),
      agentPort: options.agentPort ?? 8090,
      schedulingDelayMs: options.schedulingDelayMs ?? 0,
      speedup: Math.max(1, options.speedup ?? 1),
      readinessTiming: options.readinessTiming ?? {},
      restartBackoffMs: (options.restartBackoffMs ?? 10_000) / Math.max(1, options.speedup ?? 1),
      maxTerminationGraceMs: options.maxTerminationGraceMs ?? 30_000,
      workRoot: options.workRoot ?? mkdtempSync(join(tmpdir(), 'fake-kubelet-')),
      extraEnv: options.extraEnv ?? {},
      requireSecretVolumes: options.requireSecretVolumes ?? true,
      onAgentOutput: options.onAgentOutput,
    };
    this.stopGraceMs = options.stopGraceMs ?? 2_000;
    this.ips = new LoopbackIpPool({ prefix: options.addressPrefix ?? randomLoopbackPrefix() });
    if (options.pendingForever) this.holds.add(options.pendingForever);
  }

  /** Starts watching the store (existing pods are picked up too). */
  start(): void {
    if (this.unsubscribe) return;
    this.unsubscribe = this.store.subscribe((event) => this.onEvent(event));
    for (const pod of this.store.list('pods')) this.markDirty(pod.metadata.namespace ?? '', pod.metadata.name as string);
  }

  /** Stops watching and kills every agent (SIGTERM, SIGKILL after `stopGraceMs`). Pods stay in the store. */
  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    this.unsubscribe?.();
    await Promise.all([...this.runtimes.values()].map((r) => r.dispose(this.stopGraceMs)));
    if (this.ownsWorkRoot) await removeSandboxDirs(this.settings.workRoot);
  }

  /** Keeps pods matching `filter` Pending (never scheduled) until the returned function is called. */
  holdPending(filter: (pod: KubeObject) => boolean): () => void {
    this.holds.add(filter);
    return () => {
      this.holds.delete(filter);
      for (const runtime of this.runtimes.values()) if (runtime.state === 'held') this.markDirty(runtime.namespace, runtime.name);
    };
  }

  /** Kills the pod's agent like a crash: restartCount + 1, Ready False, restarted after the back-off. */
  crashContainer(namespace: string, name: string): Promise<void> {
    return this.runtime(namespace, name).crash();
  }

  /** Kills the pod's agent without restart. `updateStatus: false` leaves the pod's status stale (still Ready). */
  killAgent(namespace: string, name: string, options: { updateStatus?: boolean } = {}): Promise<void> {
    return this.runtime(namespace, name).killAgent(options.updateStatus ?? true);
  }

  /** Moves the pod to `phase: Failed` (agent stopped, never restarted). */
  failPod(namespace: string, name: string, options: { reason?: string; message?: string } = {}): Promise<void> {
    return this.runtime(namespace, name).fail(options.reason ?? 'Error', options.message ?? 'pod failed (fake kubelet hook)');
  }

  /** Forces readiness (flapping: `false` then `true`), or returns it to the readiness probe with `undefined`. */
  setReadiness(namespace: string, name: string, ready: boolean | undefined): void {
    this.runtime(namespace, name).setReadiness(ready);
  }

  /** PID of the pod's agent process while it runs. */
  agentPid(namespace: string, name: string): number | undefined {
    const runtime = this.find(namespace, name);
    return runtime?.process?.running ? runtime.process.pid : undefined;
  }

  /** Loopback address assigned to the pod. */
  podIp(namespace: string, name: string): string | undefined {
    return this.find(namespace, name)?.ip;
  }

  /** Last 64 KiB of the agent's output. */
  agentLogs(namespace: string, name: string): string {
    return this.find(namespace, name)?.process?.logs ?? '';
  }

  /** Number of agent processes currently running. */
  get runningAgents(): number {
    return [...this.runtimes.values()].filter((r) => r.process?.running).length;
  }

  private runtime(namespace: string, name: string): PodRuntime {
    const runtime = this.find(namespace, name);
    if (!runtime) throw new Error(`fake kubelet: no pod ${namespace}/${name}`);
    return runtime;
  }

  private find(namespace: string, name: string): PodRuntime | undefined {
    return [...this.runtimes.values()].find((r) => r.namespace === namespace && r.name === name && r.state !== 'gone');
  }

  private onEvent(event: StoreEvent): void {
    const meta = event.object.metadata;
    if (event.resource === 'pods') this.markDirty(meta.namespace ?? '', meta.name as string);
    else if (event.resource === 'secrets') {
      for (const runtime of this.runtimes.values()) {
        if (runtime.namespace === meta.namespace) this.markDirty(runtime.namespace, runtime.name, true);
      }
    }
  }

  /** Coalesces changes and handles them outside the store write that caused them. */
  private markDirty(namespace: string, name: string, secretChanged = false): void {
    const key = `${namespace}/${name}`;
    this.dirty.set(key, (this.dirty.get(key) ?? false) || secretChanged);
    if (this.flushScheduled) return;
    this.flushScheduled = true;
    setImmediate(() => this.flush());
  }

  private flush(): void {
    this.flushScheduled = false;
    if (this.stopped) return;
    const entries = [...this.dirty];
    this.dirty.clear();
    for (const [key, secretChanged] of entries) {
      const slash = key.indexOf('/');
      const namespace = key.slice(0, slash);
      const name = key.slice(slash + 1);
      const pod = this.store.get('pods', namespace, name);
      for (const runtime of this.runtimes.values()) {
        if (runtime.namespace !== namespace || runtime.name !== name) continue;
        if (pod?.metadata.uid === runtime.uid) continue;
        runtime.onPodChanged(undefined, false);
      }
      if (!pod) continue;
      const uid = pod.metadata.uid as string;
      let runtime = this.runtimes.get(uid);
      if (!runtime) {
        const nodeName = (pod['spec'] as Record<string, unknown> | undefined)?.['nodeName'];
        if (nodeName && nodeName !== this.settings.nodeName) continue;
        runtime = new PodRuntime(namespace, name, uid, {
          api: this.api,
          store: this.store,
          ips: this.ips,
          settings: this.settings,
          onGone: (gone) => this.runtimes.delete(gone.uid),
        });
        this.runtimes.set(uid, runtime);
      }
      runtime.onPodChanged(pod, [...this.holds].some((hold) => hold(pod)));
      if (secretChanged) runtime.onSecretChanged();
    }
  }
}
