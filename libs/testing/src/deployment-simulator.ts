import { createHash } from 'node:crypto';
import { DEPLOYMENTS } from './fake-kube/api/builtin-resources.js';
import { PODS } from './fake-kube/api/resources.js';
import type { KubeObject } from './fake-kube/api/types.js';
import type { FakeCluster } from './fake-kube/fake-cluster.js';

interface DeploymentObject extends KubeObject {
  spec: { replicas?: number; template: { metadata?: { labels?: Record<string, string>; annotations?: Record<string, string> }; spec: Record<string, unknown> } };
}

/** Template-hash label of the pods (the real controller's `pod-template-hash`). */
const TEMPLATE_HASH = 'pod-template-hash';

/**
 * The Deployment controller the fake cluster lacks, as far as the operator depends on it: one pod per replica
 * from the template (its labels, an owner reference to the Deployment, named `<deployment>-<hash>-<n>`), pods
 * of an older template replaced (a rollout), and the status a real controller writes (observedGeneration,
 * replicas, readyReplicas, availableReplicas, the Available condition). Server pods stay Pending (the kubelet
 * simulator runs sandbox agents only) and count as ready. Writes go straight to the store (not the request log).
 * With `holdServerPods`, pods the Deployment no longer wants stay until `releasePods()` — to watch the operator
 * wait for them during teardown.
 */
export class DeploymentSimulator {
  private readonly off: () => void;
  private hold: boolean;
  private stopped = false;
  /** What went wrong while simulating (a test may assert it is empty). */
  readonly errors: unknown[] = [];

  constructor(
    private readonly cluster: FakeCluster,
    private readonly namespace: string,
    options: { holdServerPods?: boolean } = {},
  ) {
    this.hold = options.holdServerPods ?? false;
    this.off = cluster.store.subscribe((event) => {
      if (event.resource !== 'deployments' || event.type === 'DELETED' || event.object.metadata.namespace !== namespace) return;
      // After the store has told every subscriber (the watch streams included): a write from inside a subscriber
      // would reach later subscribers before the event that caused it.
      const name = event.object.metadata.name!;
      queueMicrotask(() => this.reconcileNamed(name));
    });
  }

  /** From now on, pods the Deployments no longer want stay until `releasePods()`. */
  holdPods(): void {
    this.hold = true;
  }

  /** Lets pods the Deployments no longer want go (and stops holding later ones). */
  releasePods(): void {
    this.hold = false;
    for (const deployment of this.cluster.store.list('deployments', this.namespace)) this.reconcileNamed(deployment.metadata.name!);
  }

  private reconcileNamed(name: string): void {
    const deployment = this.cluster.store.get('deployments', this.namespace, name);
    if (!deployment || this.stopped) return;
    try {
      this.reconcile(deployment as DeploymentObject);
    } catch (error) {
      this.errors.push(error);
      console.error('deployment simulator:', error);
    }
  }

  /** The pods of `deployment` now (the simulator's). */
  podsOf(deployment: string): KubeObject[] {
    return this.cluster.store.list('pods', this.namespace).filter((pod) => (pod.metadata.ownerReferences as Array<{ kind: string; name: string }> | undefined)?.some((ref) => ref.kind === 'Deployment' && ref.name === deployment));
  }

  stop(): void {
    this.stopped = true;
    this.off();
  }

  private reconcile(deployment: DeploymentObject): void {
    const name = deployment.metadata.name!;
    const hash = createHash('sha256').update(JSON.stringify(deployment.spec.template)).digest('hex').slice(0, 10);
    const desired = deployment.spec.replicas ?? 1;
    const pods = this.podsOf(name).filter((pod) => !pod.metadata.deletionTimestamp);
    const current = pods.filter((pod) => pod.metadata.labels?.[TEMPLATE_HASH] === hash);
    const unwanted = [...pods.filter((pod) => pod.metadata.labels?.[TEMPLATE_HASH] !== hash), ...current.slice(desired)];
    if (!this.hold) for (const pod of unwanted) this.cluster.api.delete(PODS, this.namespace, pod.metadata.name!);
    for (let n = current.length; n < desired; n++) {
      this.cluster.api.create(PODS, this.namespace, {
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: {
          name: `${name}-${hash}-${n}-${Math.random().toString(36).slice(2, 7)}`,
          labels: { ...(deployment.spec.template.metadata?.labels ?? {}), [TEMPLATE_HASH]: hash },
          annotations: deployment.spec.template.metadata?.annotations ?? {},
          ownerReferences: [{ apiVersion: 'apps/v1', kind: 'Deployment', name, uid: deployment.metadata.uid!, controller: true }],
        },
        spec: deployment.spec.template.spec,
      });
    }
    const ready = Math.min(desired, current.length + Math.max(0, desired - current.length));
    const status = {
      observedGeneration: deployment.metadata['generation'] as number,
      replicas: desired,
      updatedReplicas: desired,
      readyReplicas: ready,
      availableReplicas: ready,
      conditions: [{ type: 'Available', status: ready >= desired ? 'True' : 'False', reason: 'MinimumReplicasAvailable', message: 'Deployment has minimum availability.' }],
    };
    const old = (deployment as { status?: unknown }).status;
    if (JSON.stringify(old) === JSON.stringify(status)) return;
    this.cluster.api.patch(DEPLOYMENTS, this.namespace, name, 'merge', { status }, { subresource: 'status' });
  }
}
