import { join } from 'node:path';
import type { KubeApi } from '../api/kube-api.js';
import { formatTime } from '../api/kube-time.js';
import type { ObjectStore } from '../api/object-store.js';
import type { KubeObject } from '../api/types.js';
import { AgentProcess, exitCodeOf, type AgentCommand, type ProcessExit } from './agent-process.js';
import { resolveContainerEnv, type SecretLookup } from './env-resolver.js';
import type { LoopbackIpPool } from './ip-pool.js';
import { PodNetwork } from './pod-network.js';
import { agentPortOf, allocatePodAddress, mapPath, prepareSandboxDirs, removeSandboxDirs, type SandboxDirs } from './pod-sandbox.js';
import { setCondition, setContainerStatus, setReady, statusOf, type ContainerState } from './pod-status.js';
import { planReadinessProbe, runProbe, type ProbeTimingOverride } from './probe.js';

type Json = Record<string, unknown>;

/** Settings shared by all pod runtimes (resolved kubelet options). */
export interface RuntimeSettings {
  nodeName: string;
  agent: AgentCommand;
  agentPort: number;
  schedulingDelayMs: number;
  speedup: number;
  readinessTiming: ProbeTimingOverride;
  restartBackoffMs: number;
  maxTerminationGraceMs: number;
  workRoot: string;
  extraEnv: Record<string, string>;
  requireSecretVolumes: boolean;
  onAgentOutput?: (pod: string, stream: 'stdout' | 'stderr', text: string) => void;
}

export interface RuntimeDeps {
  api: KubeApi;
  store: ObjectStore;
  ips: LoopbackIpPool;
  settings: RuntimeSettings;
  /** Called once the runtime is fully torn down. */
  onGone(runtime: PodRuntime): void;
}

export type RuntimeState = 'new' | 'held' | 'scheduling' | 'config-error' | 'starting' | 'running' | 'backoff' | 'stopped' | 'terminating' | 'gone';

/**
 * The simulated kubelet's view of one pod (one uid): bind, resolve env, start the agent on the pod's loopback
 * address, probe readiness, restart after crashes, and stop the agent when the pod is deleted.
 */
export class PodRuntime {
  state: RuntimeState = 'new';
  ip?: string;
  port: number;
  process?: AgentProcess;
  restartCount = 0;
  ready = false;
  private readinessOverride?: boolean;
  private generation = 0;
  private crashes = 0;
  private dirs?: SandboxDirs;
  private network?: PodNetwork;
  private startedAt?: string;
  private lastState?: ContainerState;
  private noRestart = false;
  private freezeStatus = false;
  private failure?: { reason: string; message: string };
  private readonly timers = new Set<NodeJS.Timeout>();

  constructor(
    readonly namespace: string,
    readonly name: string,
    readonly uid: string,
    private readonly deps: RuntimeDeps,
  ) {
    this.port = deps.settings.agentPort;
  }

  get key(): string {
    return `${this.namespace}/${this.name}`;
  }

  /** Reacts to the pod's current state (undefined: the pod is gone). */
  onPodChanged(pod: KubeObject | undefined, held: boolean): void {
    if (this.state === 'gone') return;
    if (!pod || pod.metadata.uid !== this.uid) {
      void this.dispose(this.deps.settings.maxTerminationGraceMs).catch(() => undefined);
      return;
    }
    if (pod.metadata.deletionTimestamp !== undefined) {
      void this.terminate(pod).catch(() => undefined);
      return;
    }
    if (this.state !== 'new' && this.state !== 'held') return;
    if (held) {
      this.state = 'held';
      return;
    }
    const spec = pod['spec'] as Json;
    if (spec['nodeName']) {
      void this.start();
      return;
    }
    this.state = 'scheduling';
    this.later(this.deps.settings.schedulingDelayMs, () => this.bind());
  }

  /** A Secret in the pod's namespace changed: a start blocked on it may now succeed. */
  onSecretChanged(): void {
    if (this.state === 'config-error') void this.start();
  }

  /** Test hook: kill the agent like a crash (the kubelet restarts it after the back-off). */
  async crash(): Promise<void> {
    if (this.process?.running) await this.process.kill();
  }

  /** Test hook: kill the agent and never restart it; `updateStatus: false` leaves the pod looking Ready. */
  async killAgent(updateStatus: boolean): Promise<void> {
    this.noRestart = true;
    this.freezeStatus = !updateStatus;
    if (this.process?.running) await this.process.kill();
  }

  /** Test hook: fail the pod (`phase: Failed`), stopping its agent. */
  async fail(reason: string, message: string): Promise<void> {
    this.noRestart = true;
    this.failure = { reason, message };
    this.clearTimers();
    if (this.process?.running) await this.process.kill();
    else this.writeTerminal();
  }

  /** Test hook: force readiness (true/false) or return it to the probe (undefined). */
  setReadiness(ready: boolean | undefined): void {
    this.readinessOverride = ready;
    if (ready !== undefined && this.state === 'running') this.updateReady(ready);
  }

  /** Stops everything; resolves when the agent process is gone and the directories are removed. */
  async dispose(graceMs: number): Promise<void> {
    if (this.state === 'gone') return;
    this.state = 'gone';
    this.clearTimers();
    if (this.process?.running) await this.process.terminate(graceMs);
    await this.network?.close();
    if (this.ip) this.deps.ips.release(this.ip);
    if (this.dirs) await removeSandboxDirs(this.dirs.root);
    this.deps.onGone(this);
  }

  private bind(): void {
    if (this.state !== 'scheduling') return;
    const now = formatTime(new Date());
    const bound = this.deps.api.mutatePod(this.namespace, this.name, this.uid, (pod) => {
      (pod['spec'] as Json)['nodeName'] = this.deps.settings.nodeName;
      setCondition(statusOf(pod), 'PodScheduled', true, now);
    });
    if (bound) void this.start();
  }

  private lookupSecret: SecretLookup = (namespace, name) => this.deps.store.get('secrets', namespace, name);
  /** A mounted ConfigMap's data as the pod sees it: Service addresses resolved by its PodNetwork. */
  private lookupConfigMap: SecretLookup = (namespace, name) => {
    const configMap = this.deps.store.get('configmaps', namespace, name);
    const data = configMap?.['data'] as Record<string, string> | undefined;
    const network = this.network;
    if (!configMap || !data || !network) return configMap;
    return { ...configMap, data: Object.fromEntries(Object.entries(data).map(([key, value]) => [key, network.rewrite(String(value))])) };
  };

  /** Starts (or restarts) the container; any unexpected failure is reported as RunContainerError, never thrown. */
  private async start(): Promise<void> {
    if (this.state === 'starting' || this.state === 'running' || this.state === 'gone' || this.state === 'terminating') return;
    this.state = 'starting';
    try {
      await this.startContainer();
    } catch (error) {
      if (this.state !== 'starting') return;
      this.state = 'stopped';
      this.writeWaiting('RunContainerError', error instanceof Error ? error.message : String(error));
    }
  }

  private async startContainer(): Promise<void> {
    const pod = this.deps.store.get('pods', this.namespace, this.name);
    if (!pod || pod.metadata.uid !== this.uid) return;
    const container = ((pod['spec'] as Json)['containers'] as Json[])[0] as Json;
    this.port = agentPortOf(container, this.deps.settings.agentPort);
    if (!this.ip) {
      const ip = await allocatePodAddress(this.deps.ips, this.port);
      if (this.state !== 'starting') {
        this.deps.ips.release(ip);
        return;
      }
      this.ip = ip;
    }
    this.network ??= new PodNetwork(this.ip, this.deps.store);
    const resolved = resolveContainerEnv(pod, container, this.lookupSecret, { podIp: this.ip, nodeName: this.deps.settings.nodeName });
    if (!resolved.ok) return this.blocked(resolved.error.reason, resolved.error.message);
    const root = join(this.deps.settings.workRoot, `${this.namespace}_${this.name}_${this.uid.slice(0, 8)}`);
    const prepared = await prepareSandboxDirs(root, pod, container, this.lookupSecret, this.deps.settings.requireSecretVolumes, this.lookupConfigMap);
    this.dirs = prepared.dirs;
    if (prepared.failure) return this.blocked('ContainerCreating', prepared.failure.message);
    if (this.state !== 'starting') return;
    const env = this.agentEnv(resolved.env, prepared.dirs, this.network);
    await this.network.open();
    this.process = await AgentProcess.start(this.deps.settings.agent, {
      env,
      cwd: prepared.dirs.workdir,
      onOutput: (stream, text) => this.deps.settings.onAgentOutput?.(this.key, stream, text),
    });
    if (this.state !== 'starting') {
      await this.process.kill();
      return;
    }
    const generation = ++this.generation;
    this.state = 'running';
    this.ready = false;
    this.startedAt = formatTime(new Date());
    const started = this.startedAt;
    void this.process.exited.then((exit) => this.onExit(generation, exit));
    this.write((pod, status, now) => {
      status['phase'] = 'Running';
      status['hostIP'] = '127.0.0.1';
      status['hostIPs'] = [{ ip: '127.0.0.1' }];
      status['podIP'] = this.ip;
      status['podIPs'] = [{ ip: this.ip }];
      status['startTime'] ??= now;
      setCondition(status, 'PodScheduled', true, now);
      setCondition(status, 'Initialized', true, now);
      setReady(status, false, now);
      setContainerStatus(pod, { ready: false, restartCount: this.restartCount, state: { running: { startedAt: started } }, lastState: this.lastState, containerId: `fake://${this.process?.pid}` });
    });
    this.probeLoop(generation, container);
  }

  private agentEnv(podEnv: Record<string, string>, dirs: SandboxDirs, network: PodNetwork): Record<string, string> {
    const env: Record<string, string> = { PATH: process.env['PATH'] ?? '/usr/local/bin:/usr/bin:/bin' };
    if (process.env['LANG']) env['LANG'] = process.env['LANG'];
    env['HOME'] = dirs.workdir;
    env['HOSTNAME'] = this.name;
    env['TMPDIR'] = dirs.tmp;
    Object.assign(env, this.deps.settings.extraEnv);
    for (const [name, value] of Object.entries(podEnv)) env[name] = network.rewrite(mapPath(value, dirs.mounts));
    env['SANDBOX_WORKDIR'] ??= dirs.workdir;
    env['SANDBOX_OUTPUT_DIR'] ??= join(dirs.workdir, '.cli-mcp');
    env['SANDBOX_AGENT_HOST'] = this.ip as string;
    env['SANDBOX_AGENT_PORT'] = String(this.port);
    env['SANDBOX_EXIT_WITH_PARENT'] = '1';
    return env;
  }

  private probeLoop(generation: number, container: Json): void {
    const plan = planReadinessProbe(container, this.ip as string, this.deps.settings.speedup, this.deps.settings.readinessTiming);
    let successes = 0;
    let failures = 0;
    const tick = async (): Promise<void> => {
      if (generation !== this.generation || this.state !== 'running') return;
      const ok = this.readinessOverride ?? (await runProbe(plan.action, plan.timing.timeoutMs, this.process?.running ?? false));
      if (generation !== this.generation || this.state !== 'running') return;
      if (ok) {
        successes++;
        failures = 0;
        if (!this.ready && successes >= plan.timing.successThreshold) this.updateReady(true);
      } else {
        failures++;
        successes = 0;
        if (this.ready && failures >= plan.timing.failureThreshold) this.updateReady(false);
      }
      this.later(plan.timing.periodMs, () => void tick());
    };
    this.later(plan.timing.initialDelayMs, () => void tick());
  }

  private updateReady(ready: boolean): void {
    this.ready = ready;
    const started = this.startedAt as string;
    this.write((pod, status, now) => {
      setReady(status, ready, now);
      setContainerStatus(pod, { ready, restartCount: this.restartCount, state: { running: { startedAt: started } }, lastState: this.lastState, containerId: `fake://${this.process?.pid}` });
    });
  }

  private onExit(generation: number, exit: ProcessExit): void {
    if (generation !== this.generation || this.state === 'terminating' || this.state === 'gone') return;
    this.ready = false;
    const exitCode = exitCodeOf(exit);
    const terminated: ContainerState = {
      terminated: { exitCode, reason: exitCode === 0 ? 'Completed' : 'Error', startedAt: this.startedAt, finishedAt: formatTime(new Date()) },
    };
    const policy = String((this.deps.store.get('pods', this.namespace, this.name)?.['spec'] as Json | undefined)?.['restartPolicy'] ?? 'Always');
    if (this.noRestart && !this.failure) {
      // killAgent hook: the container stays dead; optionally the status is left stale (still Ready).
      this.state = 'stopped';
      this.lastState = terminated;
      if (!this.freezeStatus) {
        this.write((pod, status, now) => {
          setReady(status, false, now);
          setContainerStatus(pod, { ready: false, restartCount: this.restartCount, state: terminated });
        });
      }
      return;
    }
    if (this.failure || policy === 'Never' || (policy === 'OnFailure' && exitCode === 0)) {
      this.state = 'stopped';
      this.lastState = terminated;
      this.writeTerminal(exitCode, terminated);
      return;
    }
    this.state = 'backoff';
    this.restartCount++;
    this.crashes++;
    this.lastState = terminated;
    const cap = 300_000 / this.deps.settings.speedup;
    const backoff = Math.min(this.deps.settings.restartBackoffMs * 2 ** (this.crashes - 1), cap);
    const container = String(((this.deps.store.get('pods', this.namespace, this.name)?.['spec'] as Json)?.['containers'] as Json[] | undefined)?.[0]?.['name'] ?? 'sandbox');
    this.write((pod, status, now) => {
      setReady(status, false, now);
      setContainerStatus(pod, {
        ready: false,
        restartCount: this.restartCount,
        state: { waiting: { reason: 'CrashLoopBackOff', message: `back-off ${Math.round(backoff / 1000)}s restarting failed container=${container} pod=${this.name}_${this.namespace}(${this.uid})` } },
        lastState: terminated,
      });
    });
    this.later(backoff, () => {
      if (this.state === 'backoff') void this.start();
    });
  }

  /** Final status of a container that will not run again (restartPolicy, fail hook). */
  private writeTerminal(exitCode = 137, terminated?: ContainerState): void {
    const failed = this.failure !== undefined || exitCode !== 0;
    this.write((pod, status, now) => {
      status['phase'] = failed ? 'Failed' : 'Succeeded';
      if (this.failure) {
        status['reason'] = this.failure.reason;
        status['message'] = this.failure.message;
      }
      setCondition(status, 'ContainersReady', false, now, 'PodCompleted');
      setCondition(status, 'Ready', false, now, 'PodCompleted');
      setContainerStatus(pod, {
        ready: false,
        restartCount: this.restartCount,
        state: terminated ?? { terminated: { exitCode, reason: 'Error', finishedAt: now } },
      });
    });
  }

  private blocked(reason: string, message: string): void {
    this.state = 'config-error';
    this.writeWaiting(reason, message);
  }

  private writeWaiting(reason: string, message: string): void {
    this.write((pod, status, now) => {
      status['phase'] = 'Pending';
      setCondition(status, 'PodScheduled', true, now);
      setCondition(status, 'Initialized', true, now);
      setReady(status, false, now);
      setContainerStatus(pod, { ready: false, restartCount: this.restartCount, state: { waiting: { reason, message } }, lastState: this.lastState });
    });
  }

  /** Graceful deletion: SIGTERM the agent, SIGKILL after the pod's grace (capped), then finish the delete. */
  private async terminate(pod: KubeObject): Promise<void> {
    if (this.state === 'terminating' || this.state === 'gone') return;
    this.state = 'terminating';
    this.clearTimers();
    const grace = (pod.metadata.deletionGracePeriodSeconds ?? 30) * 1000;
    if (this.process?.running) {
      const exit = await this.process.terminate(Math.min(grace, this.deps.settings.maxTerminationGraceMs));
      const exitCode = exitCodeOf(exit);
      this.write((current, status, now) => {
        status['phase'] = exitCode === 0 ? 'Succeeded' : 'Failed';
        setReady(status, false, now);
        setContainerStatus(current, {
          ready: false,
          restartCount: this.restartCount,
          state: { terminated: { exitCode, reason: exitCode === 0 ? 'Completed' : 'Error', startedAt: this.startedAt, finishedAt: now } },
        });
      });
    }
    this.deps.api.finalizePod(this.namespace, this.name, this.uid);
  }

  private write(mutate: (pod: KubeObject, status: Json, now: string) => void): void {
    this.deps.api.mutatePod(this.namespace, this.name, this.uid, (pod) => mutate(pod, statusOf(pod), formatTime(new Date())));
  }

  private later(ms: number, fn: () => void): void {
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      fn();
    }, Math.max(0, ms));
    this.timers.add(timer);
  }

  private clearTimers(): void {
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
  }
}
