import type { V1ObjectMeta } from '@kubernetes/client-node';
import { COMPONENT_LABEL, EGRESS_GATEWAY_COMPONENT, INSTANCE_LABEL, SANDBOX_COMPONENT, SESSION_ID_LABEL, egressNames, isTerminating } from '@cli-mcp/podspec';
import { isConflict, isNotFound } from '@cli-mcp/kube';
import type { Clock } from '@cli-mcp/common';
import type { ControllerLogger } from '../../controller-logger.js';
import { withBoundedSignal } from '../../reconcile/bounded-signal.js';
import { INSTANCE_FINALIZER, type CliMcpInstance } from '../api/climcpinstance.js';
import { READY, REASONS, WARM_POOL_READY } from '../api/conditions.js';
import { childNames, SERVER_COMPONENT } from '../children/child-names.js';
import { isOwnedBy, ownerOf } from '../children/owner.js';
import type { ObjectApi } from '../kube/object-api.port.js';
import { CLIMCP_INSTANCES, CONFIG_MAPS, DEPLOYMENTS, PODS, SECRETS, type ResourceRef } from '../kube/resources.js';
import { cachedChild, type OperatorCaches } from '../operator-caches.js';
import type { WorkerRegistry } from '../workers/worker-registry.js';
import type { StatusWriter } from './status-writer.js';

export interface TeardownDeps {
  readonly api: ObjectApi;
  readonly caches: OperatorCaches;
  readonly workers: WorkerRegistry;
  readonly status: StatusWriter;
  readonly clock: Clock;
  readonly logger: ControllerLogger;
  readonly writeTimeoutMs: number;
}

/**
 * The finalizer's work when a CliMcpInstance is deleted (C-OP-5), one step per pass, each decided on the caches
 * (so a new leader resumes wherever the cluster is): stop the instance's pool and GC; scale the server to 0 and
 * wait until its pods are gone (no server may create a sandbox meanwhile), then the egress gateway's (spec.proxy);
 * delete the instance's sandbox pods, session Secrets and the gateway's CA Secret (uid + resourceVersion
 * preconditions) and wait until they are gone; remove the finalizer. The
 * owned children then go by garbage collection; the admin Secrets are never touched. An instance whose server
 * Deployment belongs to someone else (an instance of the same name deployed another way) deletes nothing of it.
 */
export class Teardown {
  constructor(private readonly deps: TeardownDeps) {}

  async pass(cr: CliMcpInstance, signal: AbortSignal): Promise<{ done: boolean }> {
    const { caches } = this.deps;
    const name = cr.metadata.name ?? '';
    if (!(cr.metadata.finalizers ?? []).includes(INSTANCE_FINALIZER)) return { done: true };
    await this.deps.workers.get(name).pause();
    const owner = ownerOf(cr);
    const deployment = cachedChild(caches, DEPLOYMENTS, childNames(name).server);
    const foreign = deployment !== undefined && !isOwnedBy(deployment.metadata, owner);
    if (!foreign) {
      const stopping = (await this.scaledDown(cr, childNames(name).server, SERVER_COMPONENT, 'server', signal)) ?? (await this.scaledDown(cr, egressNames(name).gateway, EGRESS_GATEWAY_COMPONENT, 'egress gateway', signal));
      if (stopping) return stopping;
      const sandboxes = caches.pods.objects().filter((pod) => labelled(pod.metadata, name, SANDBOX_COMPONENT));
      const sessions = caches.secrets.objects().filter((secret) => labelled(secret.metadata, name, SANDBOX_COMPONENT) && secret.metadata?.labels?.[SESSION_ID_LABEL] !== undefined);
      // spec.proxy: the CA the gateway minted (its key signs what the sandboxes trust) goes once no gateway runs.
      const ca = caches.secrets.get(egressNames(name).caSecret);
      if (ca && labelled(ca.metadata, name, EGRESS_GATEWAY_COMPONENT)) sessions.push(ca);
      for (const pod of sandboxes) if (!isTerminating(pod)) await this.remove(PODS, pod.metadata, signal);
      for (const secret of sessions) await this.remove(SECRETS, secret.metadata, signal);
      if (sandboxes.length + sessions.length > 0) return this.waiting(cr, `deleting ${sandboxes.length} sandbox pod(s) and ${sessions.length} session or egress CA Secret(s)`, signal);
      // spec.proxy: the ConfigMap the gateway published for the sandboxes (CA certificate, dummy kubeconfig) has no
      // owner the garbage collector could follow and carries the gateway's labels, not the operator's informer's:
      // it goes by its name, once no gateway or sandbox is left (C-OP-5 "leaves nothing behind").
      if (cr.spec?.proxy !== undefined) await this.remove(CONFIG_MAPS, { name: egressNames(name).sandboxConfigMap }, signal);
    } else {
      this.deps.logger.warn('teardown: the server Deployment belongs to someone else; its pods and Secrets are left alone', { instance: name });
    }
    const finalizers = (cr.metadata.finalizers ?? []).filter((f) => f !== INSTANCE_FINALIZER);
    try {
      await this.write(signal, (s) => this.deps.api.mergePatch(CLIMCP_INSTANCES, name, { metadata: { finalizers, resourceVersion: cr.metadata.resourceVersion } }, s));
    } catch (error) {
      if (isConflict(error)) return { done: false }; // changed meanwhile: the watch brings it back
      if (!isNotFound(error)) throw error;
    }
    this.deps.logger.info('instance torn down; finalizer removed', { instance: name });
    return { done: true };
  }

  /**
   * Scales the instance's Deployment `deployment` to 0 and waits until its `component` pods are gone; undefined when
   * none is left (or the Deployment is not this CR's: another writer's pods are not waited for).
   */
  private async scaledDown(cr: CliMcpInstance, deployment: string, component: string, what: string, signal: AbortSignal): Promise<{ done: boolean } | undefined> {
    const name = cr.metadata.name ?? '';
    const live = cachedChild(this.deps.caches, DEPLOYMENTS, deployment);
    if (live !== undefined && !isOwnedBy(live.metadata, ownerOf(cr))) return undefined;
    if (live && !live.metadata?.deletionTimestamp && (live.spec as { replicas?: number } | undefined)?.replicas !== 0) {
      await this.write(signal, (s) => this.deps.api.mergePatch(DEPLOYMENTS, deployment, { spec: { replicas: 0 } }, s));
      return this.waiting(cr, `scaling the ${what} to 0`, signal);
    }
    const pods = this.deps.caches.pods.objects().filter((pod) => labelled(pod.metadata, name, component));
    return pods.length > 0 ? this.waiting(cr, `waiting for ${pods.length} ${what} pod(s) to end`, signal) : undefined;
  }

  private async remove(resource: ResourceRef, metadata: V1ObjectMeta | undefined, signal: AbortSignal): Promise<void> {
    const { name, uid, resourceVersion } = metadata ?? {};
    try {
      await this.write(signal, (s) => this.deps.api.delete(resource, name ?? '', s, { uid, resourceVersion }));
    } catch (error) {
      if (!isNotFound(error) && !isConflict(error)) throw error;
    }
  }

  private async waiting(cr: CliMcpInstance, step: string, signal: AbortSignal): Promise<{ done: boolean }> {
    const message = `the instance is being deleted: ${step}`;
    await this.write(signal, (s) =>
      this.deps.status.publish(cr, {
        conditions: [
          { type: READY, status: false, reason: REASONS.reconciling, message },
          { type: WARM_POOL_READY, status: false, reason: REASONS.warmPoolNotReady, message: 'the instance is being deleted' },
        ],
        warmPoolReady: 0,
        warmPoolDesired: 0,
        resolvedSandboxImage: cr.status?.resolvedSandboxImage,
      }, s),
    ).catch((error: unknown) => {
      if (!isConflict(error) && !isNotFound(error)) throw error;
    });
    return { done: false };
  }

  private write<T>(signal: AbortSignal, request: (signal: AbortSignal) => Promise<T>): Promise<T> {
    return withBoundedSignal(signal, this.deps.clock, this.deps.writeTimeoutMs, request);
  }
}

function labelled(metadata: V1ObjectMeta | undefined, instance: string, component: string): boolean {
  return metadata?.labels?.[INSTANCE_LABEL] === instance && metadata.labels[COMPONENT_LABEL] === component;
}
