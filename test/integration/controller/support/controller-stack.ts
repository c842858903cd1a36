/**
 * Integration harness of the sandbox controller: the Kubernetes backend's stack (fake API server + kubelet
 * simulator + REAL agents, server replicas on real SessionManagers) plus in-process controllers — the real
 * `ControllerRuntime` on the real client-node adapters — and a clock both can share that a test may JUMP forward
 * (idle and age GC without waiting half an hour). Timers keep running in real time between jumps.
 */
import { randomBytes } from 'node:crypto';
import { KubeConfig } from '@kubernetes/client-node';
import { sandboxSelector, type SandboxPodConfig } from '@cli-mcp/podspec';
import type { Clock } from '@cli-mcp/common';
import { ClientNodeLeaseApi, createEgressGate } from '@cli-mcp/kube/client-node';
import { Registry } from 'prom-client';
import { untilStore } from '@cli-mcp/testing';
import type { ControllerConfig } from '../../../../apps/sandbox-controller/src/config/controller-config.js';
import type { ControllerLogger } from '../../../../apps/sandbox-controller/src/controller-logger.js';
import { ControllerRuntime } from '../../../../apps/sandbox-controller/src/controller-runtime.js';
import { ClientNodeControllerApi } from '../../../../apps/sandbox-controller/src/kube/client-node-controller-api.js';
import { ListWatchPodInformer } from '@cli-mcp/kube/client-node';
import type { PodInformer } from '@cli-mcp/kube';
import { ControllerMetrics } from '../../../../apps/sandbox-controller/src/metrics/controller-metrics.js';
import { FAST_KUBELET, startKubeStack, type KubeStack } from '../../kubernetes/support/kube-stack.js';

/** Real time plus an offset a test can jump; timers fire in real time, or at once when a jump passes them. */
export class JumpClock implements Clock {
  private offset = 0;
  private readonly timers = new Set<{ at: number; callback: () => void; timer: NodeJS.Timeout }>();

  now(): number {
    return performance.now() + this.offset;
  }

  /** Wall time on this clock (annotations, Lease stamps, the fake API server's timestamps). */
  readonly wall = (): Date => new Date(Date.now() + this.offset);

  schedule(delayMs: number, callback: () => void): () => void {
    const entry = { at: this.now() + Math.max(0, delayMs), callback, timer: undefined as unknown as NodeJS.Timeout };
    const fire = (): void => {
      if (!this.timers.delete(entry)) return;
      clearTimeout(entry.timer);
      callback();
    };
    entry.timer = setTimeout(fire, Math.max(0, delayMs));
    entry.timer.unref();
    this.timers.add(entry);
    return () => {
      clearTimeout(entry.timer);
      this.timers.delete(entry);
    };
  }

  /** Moves time forward by `ms`, firing every timer that falls due. */
  jump(ms: number): void {
    this.offset += ms;
    for (const entry of [...this.timers]) {
      if (entry.at > this.now()) continue;
      clearTimeout(entry.timer);
      this.timers.delete(entry);
      entry.callback();
    }
  }
}

/** A logger that remembers its lines and lets a test wait for one (an event, not a poll). */
export class WaitableLogger implements ControllerLogger {
  /** `at` = performance.now() when logged (orderings across controllers). */
  readonly lines: Array<{ level: string; message: string; fields?: Record<string, unknown>; at: number }> = [];
  private waiters: Array<{ message: string; resolve: () => void }> = [];

  debug = (message: string, fields?: Record<string, unknown>): void => this.add('debug', message, fields);
  info = (message: string, fields?: Record<string, unknown>): void => this.add('info', message, fields);
  warn = (message: string, fields?: Record<string, unknown>): void => this.add('warn', message, fields);
  error = (message: string, fields?: Record<string, unknown>): void => this.add('error', message, fields);

  /** Resolves when a line with `message` has been logged (at once if it already was). */
  until(message: string, timeoutMs = 20_000): Promise<void> {
    if (this.lines.some((l) => l.message === message)) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no log line "${message}" within ${timeoutMs} ms; got ${JSON.stringify(this.lines.map((l) => l.message))}`)), timeoutMs);
      this.waiters.push({ message, resolve: () => (clearTimeout(timer), resolve()) });
    });
  }

  private add(level: string, message: string, fields?: Record<string, unknown>): void {
    this.lines.push({ level, message, fields, at: performance.now() });
    this.waiters = this.waiters.filter((w) => (w.message === message ? (w.resolve(), false) : true));
  }
}

export interface InProcessController {
  readonly runtime: ControllerRuntime;
  readonly logger: WaitableLogger;
  readonly informer: ListWatchPodInformer;
  readonly registry: Registry;
  readonly config: ControllerConfig;
  stop(options?: { release?: boolean }): Promise<void>;
}

export interface ControllerOptions {
  identity?: string;
  poolSize?: number;
  idleTimeoutMs?: number;
  maxSessionAgeMs?: number;
  orphanSecretGraceMs?: number;
  leaseDurationMs?: number;
  podConfig?: SandboxPodConfig;
  kubeconfigPath?: string;
}

export interface ControllerStack extends KubeStack {
  readonly clock: JumpClock;
  controller(options?: ControllerOptions): InProcessController;
}

export async function startControllerStack(): Promise<ControllerStack> {
  const clock = new JumpClock();
  const stack = await startKubeStack(FAST_KUBELET, {}, { clock: clock.wall });
  const controllers: InProcessController[] = [];
  return {
    ...stack,
    clock,
    controller(options = {}) {
      const kubeConfig = new KubeConfig();
      kubeConfig.loadFromFile(options.kubeconfigPath ?? stack.cluster.kubeconfigPath);
      const podConfig = options.podConfig ?? stack.cfg;
      const registry = new Registry();
      const config: ControllerConfig = {
        version: 'test',
        http: { address: '127.0.0.1:0', host: '127.0.0.1', port: 0 },
        identity: options.identity ?? `ctl-${randomBytes(3).toString('hex')}`,
        kubeconfig: undefined,
        podConfig,
        pool: { size: options.poolSize ?? 0, shortfallGraceMs: 60_000 },
        gc: { idleTimeoutMs: options.idleTimeoutMs ?? 30 * 60_000, maxSessionAgeMs: options.maxSessionAgeMs, orphanSecretGraceMs: options.orphanSecretGraceMs ?? 10 * 60_000 },
        leaseDurationMs: options.leaseDurationMs ?? 3000,
        logLevel: 'info',
      };
      const logger = new WaitableLogger();
      const informer = new ListWatchPodInformer({
        kubeConfig, namespace: podConfig.namespace, labelSelector: sandboxSelector(podConfig.instanceName), registry, clock, random: Math.random, logger,
      });
      const runtime = new ControllerRuntime(config, {
        api: new ClientNodeControllerApi({ kubeConfig, namespace: podConfig.namespace, registry }),
        leases: new ClientNodeLeaseApi({ kubeConfig, namespace: podConfig.namespace, registry }),
        informer,
        clock,
        wallClock: clock.wall,
        random: Math.random,
        randomBytes: (size) => randomBytes(size),
        metrics: new ControllerMetrics(registry),
        logger,
        // As run-controller.ts wires it: the fail-closed gate with --egress-gateway (C-EGR-6).
        egressGate: createEgressGate(podConfig, { kubeConfig, registry, clock }),
      });
      runtime.start();
      let stopped = false;
      const controller: InProcessController = {
        runtime,
        informer,
        logger,
        registry,
        config,
        async stop(stopOptions) {
          if (stopped) return;
          stopped = true;
          await runtime.stop(stopOptions);
        },
      };
      controllers.push(controller);
      return controller;
    },
    async stop() {
      await Promise.all(controllers.map((c) => c.stop()));
      await stack.stop();
    },
  };
}

/** Resolves once `check` holds, re-checked on every store change of the fake cluster (no polling). */
export function untilCluster(stack: KubeStack, check: () => boolean, what: string, timeoutMs?: number): Promise<void> {
  return untilStore(stack.cluster.store, check, what, timeoutMs);
}

/** Resolves once `check` holds, re-checked on every change and state change of `informer` (no polling). */
export function untilInformer(informer: PodInformer, check: () => boolean, what: string, timeoutMs = 20_000): Promise<void> {
  return new Promise((resolve, reject) => {
    const done = (): void => {
      if (!check()) return;
      offChange();
      offState();
      clearTimeout(timer);
      resolve();
    };
    const offChange = informer.onChange(done);
    const offState = informer.onStateChange(done);
    const timer = setTimeout(() => {
      offChange();
      offState();
      reject(new Error(`timed out waiting for ${what}`));
    }, timeoutMs);
    done();
  });
}

/** Resolves once the controller's own view (its informer cache, its status) satisfies `check`. */
export function untilController(controller: InProcessController, check: () => boolean, what: string, timeoutMs = 20_000): Promise<void> {
  return untilInformer(controller.informer, check, `${what}; status ${JSON.stringify(controller.runtime.status())}`, timeoutMs);
}
