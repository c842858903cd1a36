import type { Clock } from '@cli-mcp/common';
import { SessionError, SessionErrorCode } from '../session-error.js';
import type { SessionMetrics } from '../session-metrics.js';
import type { AgentEndpoint, AgentEndpoints } from './agent-endpoint.js';
import { egressSocketMount } from './egress/sandbox-egress-env.js';
import type { LocalEgress, SandboxEgress } from './egress/local-egress.port.js';
import type { BwrapCommandInput } from './bwrap-command.js';
import { buildLaunchSpec, type LaunchInput } from './launch-spec.js';
import type { SandboxPosture } from './isolation.js';
import type { BoundsPlan } from './bounds/bounds-plan.js';
import type { DiskMonitor } from './bounds/disk-monitor.js';
import type { MemoryMonitor } from './bounds/memory-monitor.js';
import type { AgentProcess, LaunchSpec, ProcessLauncher } from './process-launcher.js';
import { SandboxSetupFailed, startAgent, stopAgent, type StartedAgent } from './sandbox-process.js';
import { sandboxView, type ViewBase } from './sandbox-view.js';
import type { NetworkAttacher, SandboxNetwork } from './slirp-network.js';

export interface SpawnerLogger {
  warn(message: string, fields?: Record<string, unknown>): void;
}

/** Everything the spawner needs, fixed once the backend has resolved its posture at start. */
export interface SpawnerPlan {
  posture: SandboxPosture;
  /** Unset without bubblewrap. */
  viewBase?: ViewBase;
  bwrap?: Omit<BwrapCommandInput, 'view' | 'network' | 'command' | 'infoFd' | 'fileFds'>;
  /** The parts of the launch input every agent shares (node, entry, env). */
  launch: Omit<LaunchInput, 'isolation' | 'workspaceHostDir' | 'token' | 'endpoint' | 'bwrap'>;
  endpoints: AgentEndpoints;
  /** With `posture.network === 'isolated'`. */
  attacher?: NetworkAttacher;
  /** With `posture.network === 'proxy'`: each sandbox gets a gateway socket and the egress files (docs/egress.md). */
  egress?: LocalEgress;
  /** The bounds of every sandbox (bounds/bounds-plan.ts), prepared. */
  bounds?: BoundsPlan;
  /** With a workspace bound: stops a sandbox whose workspace grows past it. */
  diskMonitor?: DiskMonitor;
  /** With a memory bound no cgroup holds (bounds layer 3): stops a sandbox whose processes go past it. */
  memoryMonitor?: MemoryMonitor;
}

export interface SpawnerOptions {
  launcher: ProcessLauncher;
  clock: Clock;
  readyTimeoutMs: number;
  metrics?: SessionMetrics;
  logger: SpawnerLogger;
}

/**
 * Starts sandbox agents (docs/local-backend.md "How a sandbox is built"): an endpoint, the launch spec from the
 * view and posture, the process, and with `isolated` networking its slirp4netns — ready only when both the agent
 * and the network are up. Every process it starts is tracked from spawn on, and a sandbox's network always ends
 * with it, so shutdown can miss nothing (C-HTTP-4).
 */
export class SandboxSpawner {
  private readonly children = new Set<AgentProcess>();
  private readonly networks = new Set<SandboxNetwork>();
  /** Why a sandbox was stopped by a bound, per workspace, until its session's next acquisition asks. */
  private readonly stopReasons = new Map<string, string>();
  private closing = false;

  constructor(private readonly plan: SpawnerPlan, private readonly options: SpawnerOptions) {}

  /** Starts one sandbox; a bubblewrap setup failure (nothing ran yet) gets one more try. */
  async spawn(workspace: string, token: string | undefined, signal: AbortSignal): Promise<StartedAgent> {
    try {
      return await this.spawnOnce(workspace, token, signal);
    } catch (error) {
      if (!(error instanceof SandboxSetupFailed) || signal.aborted || this.closing) throw error;
      this.options.logger.warn('sandbox setup failed; trying once more', { error: error.message });
      return this.spawnOnce(workspace, token, signal);
    }
  }

  private async spawnOnce(workspace: string, token: string | undefined, signal: AbortSignal): Promise<StartedAgent> {
    const endpoint = await this.plan.endpoints.allocate();
    let egress: SandboxEgress | undefined;
    const cgroups = await (async () => {
      egress = await this.plan.egress?.open();
      return this.plan.bounds?.cgroups?.forSandbox();
    })().catch(async (error: unknown) => {
      await Promise.all([endpoint.release(), egress?.close()]).catch(() => undefined);
      throw error;
    });
    let spawned = false;
    let handover: Promise<void> | undefined;
    const tracking: ProcessLauncher = {
      launch: (spec) => {
        const bounded = this.plan.bounds?.wrap(spec) ?? spec;
        const child = this.options.launcher.launch(cgroups ? joiningCgroups(bounded, cgroups.procsFiles) : bounded);
        spawned = true;
        const stop = (reason: string): void => this.stopForBound(child, workspace, reason);
        const unwatch = [this.plan.diskMonitor?.watch(workspace, stop), this.plan.memoryMonitor?.watch(child.pid, stop)];
        // The child holds the listening socket now; this process must not accept on it.
        handover = endpoint.handedOver().catch(() => undefined);
        this.children.add(child);
        void child.exited.then(async () => {
          this.children.delete(child);
          unwatch.forEach((end) => end?.());
          await cgroups?.remove();
          await egress?.close();
          return endpoint.release();
        }).catch(() => undefined);
        return child;
      },
    };
    const started = this.options.clock.now();
    try {
      const agent = await startAgent(tracking, buildLaunchSpec(this.launchInput(workspace, token, endpoint, egress)), {
        clock: this.options.clock, readyTimeoutMs: this.options.readyTimeoutMs, signal, urlFor: endpoint.urlFor,
        alongside: this.plan.posture.network === 'isolated' ? (child) => this.attachNetwork(child) : undefined,
      });
      // The socket reaches its final name in the handover: nobody may be given the URL before (a connect to it
      // would fail with ENOENT).
      await handover;
      if (this.closing) {
        await stopAgent(agent.process, this.options.clock, 0);
        throw new SessionError(SessionErrorCode.ShuttingDown, 'server is shutting down');
      }
      this.options.metrics?.sandboxReady(Math.max(0, this.options.clock.now() - started) / 1000);
      return { ...agent, egress };
    } catch (error) {
      if (!spawned) await Promise.all([endpoint.release(), cgroups?.remove(), egress?.close()]).catch(() => undefined);
      throw error;
    }
  }

  /** Why the last sandbox of this workspace was stopped by a bound, once (the next command's notice says it). */
  takeStopReason(workspace: string): string | undefined {
    const reason = this.stopReasons.get(workspace);
    this.stopReasons.delete(workspace);
    return reason;
  }

  peekStopReason(workspace: string): string | undefined {
    return this.stopReasons.get(workspace);
  }

  private stopForBound(child: AgentProcess, workspace: string, reason: string): void {
    if (child.hasExited) return;
    this.stopReasons.set(workspace, reason);
    this.options.logger.warn('stopping a sandbox that went over a bound', { pid: child.pid, reason });
    child.kill('SIGKILL');
  }

  /**
   * SIGTERM to every sandbox, SIGKILL after `graceMs`; resolves when they and their networks are gone. A start
   * that completes afterwards is stopped at once (ShuttingDown).
   */
  async stopAll(graceMs: number): Promise<void> {
    this.closing = true;
    this.plan.diskMonitor?.close();
    this.plan.memoryMonitor?.close();
    await Promise.all([...this.children].map((child) => stopAgent(child, this.options.clock, graceMs)));
    await Promise.all([...this.networks].map((network) => network.close()));
    await this.plan.bounds?.cgroups?.close();
  }

  private launchInput(workspace: string, token: string | undefined, endpoint: AgentEndpoint, egress: SandboxEgress | undefined): LaunchInput {
    const { posture, viewBase, bwrap, launch } = this.plan;
    const input: LaunchInput = { ...launch, isolation: posture.isolation, workspaceHostDir: workspace, token, endpoint };
    if (posture.isolation === 'bwrap') {
      if (!viewBase || !bwrap) throw new SessionError(SessionErrorCode.SandboxUnavailable, 'bubblewrap isolation without a sandbox view');
      const extras = egress ? { mounts: [egressSocketMount(egress.hostPath)], files: this.plan.egress?.files } : {};
      input.bwrap = { ...bwrap, network: posture.network, view: sandboxView(viewBase, workspace, extras) };
    }
    return input;
  }

  /** The network lives exactly as long as the sandbox: closed when it exits, and a sandbox that lost it ends. */
  private async attachNetwork(child: AgentProcess): Promise<void> {
    const attacher = this.plan.attacher;
    if (!attacher) throw new Error('no network attacher for isolated networking');
    const pid = await child.sandboxPid;
    if (pid === undefined) throw new Error('bubblewrap reported no sandbox pid, so its network cannot be attached');
    const gone = new AbortController();
    void child.exited.then(() => gone.abort());
    const network = await attacher.attach(pid, gone.signal);
    this.networks.add(network);
    void child.exited.then(() => network.close());
    void network.exited.then(() => {
      this.networks.delete(network);
      if (child.hasExited) return;
      this.options.logger.warn('the network of a sandbox ended; ending the sandbox too', { pid: child.pid });
      child.kill('SIGKILL');
    });
  }
}

/**
 * The sandbox's first process joins its cgroups before anything else runs, so nothing it starts escapes the
 * limits: a `sh` that writes its own pid to each `cgroup.procs`, then execs the real command.
 */
export function joiningCgroups(spec: LaunchSpec, procsFiles: readonly string[]): LaunchSpec {
  const script = 'n=$1; shift; while [ "$n" -gt 0 ]; do echo $$ > "$1" || exit 125; shift; n=$((n-1)); done; exec "$@"';
  return { ...spec, command: '/bin/sh', args: ['-c', script, 'sh', String(procsFiles.length), ...procsFiles, spec.command, ...spec.args] };
}
