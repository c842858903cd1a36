import { InstanceWorkers, type InstanceWorkerDeps } from './instance-workers.js';
import type { ControllerMetrics } from '../../metrics/controller-metrics.js';

/**
 * The pool and GC workers of every instance, made on first use and shared by the reconcile passes; they run
 * while this operator leads (`lead`) and stop with the instance (`remove`).
 */
export class WorkerRegistry {
  private readonly workers = new Map<string, InstanceWorkers>();
  private leader?: AbortSignal;

  constructor(private readonly deps: Omit<InstanceWorkerDeps, 'metrics'> & { readonly metrics: ControllerMetrics }) {}

  get(instance: string): InstanceWorkers {
    let workers = this.workers.get(instance);
    if (!workers) {
      workers = new InstanceWorkers(instance, { ...this.deps, metrics: this.deps.metrics.forInstance(instance) });
      if (this.leader && !this.leader.aborted) workers.lead(this.leader);
      this.workers.set(instance, workers);
    }
    return workers;
  }

  lead(signal: AbortSignal): void {
    this.leader = signal;
    for (const workers of this.workers.values()) workers.lead(signal);
  }

  async remove(instance: string): Promise<void> {
    const workers = this.workers.get(instance);
    this.workers.delete(instance);
    await workers?.stop();
  }

  async stopAll(): Promise<void> {
    await Promise.all([...this.workers.keys()].map((name) => this.remove(name)));
  }

  names(): string[] {
    return [...this.workers.keys()];
  }
}
