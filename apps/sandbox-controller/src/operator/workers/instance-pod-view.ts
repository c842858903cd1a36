import type { V1Pod } from '@kubernetes/client-node';
import { COMPONENT_LABEL, INSTANCE_LABEL, SANDBOX_COMPONENT } from '@cli-mcp/podspec';
import type { ObjectInformer } from '@cli-mcp/kube';
import type { PodChange, PodInformer } from '@cli-mcp/kube';

/**
 * One instance's sandbox pods, seen through the operator's ONE pod informer (C-OP-6: every instance's pool and GC
 * share it, no informer per instance): exactly what the controller's own informer would hold for
 * `instance=<name>,component=sandbox`, so the pool and GC reconcilers run unchanged on it.
 */
export class InstancePodView implements PodInformer {
  constructor(
    private readonly shared: ObjectInformer<V1Pod>,
    private readonly instance: string,
  ) {}

  get synced(): boolean {
    return this.shared.synced;
  }

  get problem(): string | undefined {
    return this.shared.problem;
  }

  /** The shared informer is started and stopped by the operator, not by an instance. */
  start(): void {}

  async stop(): Promise<void> {}

  pods(): V1Pod[] {
    return this.shared.objects().filter((pod) => this.mine(pod));
  }

  onChange(listener: (change: PodChange) => void): () => void {
    return this.shared.onObjectChange((change) => {
      if (!this.mine(change.object) && !(change.previous && this.mine(change.previous))) return;
      listener(change.previous ? { type: change.type, pod: change.object, previous: change.previous } : { type: change.type, pod: change.object });
    });
  }

  onStateChange(listener: () => void): () => void {
    return this.shared.onStateChange(listener);
  }

  private mine(pod: V1Pod): boolean {
    const labels = pod.metadata?.labels;
    return labels?.[INSTANCE_LABEL] === this.instance && labels[COMPONENT_LABEL] === SANDBOX_COMPONENT;
  }
}
