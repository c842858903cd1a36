import type { KubeApi } from '../kube-api.js';
import { formatTime } from '../kube-time.js';
import type { ObjectStore, StoreEvent } from '../object-store.js';
import type { ResourceRegistry } from '../resource-registry.js';
import { KubeApiError } from '../status.js';
import type { KubeObject } from '../types.js';
import { CRD_CLEANUP_FINALIZER, CUSTOM_RESOURCE_DEFINITIONS, servedDefinitions, type CrdSpec } from './crd-definitions.js';


/**
 * The apiextensions controllers of a real server, in process: a CRD's resources are served from the moment it is
 * stored (synchronously, so a client may create one right after the CRD), its status gets `NamesAccepted` and
 * `Established`, and a deleted CRD first deletes every custom resource (its cleanup finalizer), then goes.
 * Status writes are deferred to the next turn of the event loop, never made inside another write's event.
 */
export class CrdController {
  private unsubscribe?: () => void;
  private readonly pending = new Set<string>();

  constructor(
    private readonly api: KubeApi,
    private readonly store: ObjectStore,
    private readonly registry: ResourceRegistry,
    private readonly clock: () => Date = () => new Date(),
  ) {}

  start(): void {
    for (const crd of this.store.list(CUSTOM_RESOURCE_DEFINITIONS.storage)) this.serve(crd);
    this.unsubscribe = this.store.subscribe((event) => this.onEvent(event));
  }

  stop(): void {
    this.unsubscribe?.();
    this.unsubscribe = undefined;
  }

  private onEvent(event: StoreEvent): void {
    if (event.resource === CUSTOM_RESOURCE_DEFINITIONS.storage) {
      const name = event.object.metadata.name as string;
      if (event.type === 'DELETED') this.registry.removeCustom(name);
      else {
        this.serve(event.object);
        this.schedule(name);
      }
      return;
    }
    // A custom resource of a terminating CRD went away: maybe the last one.
    if (event.type === 'DELETED' && this.store.get(CUSTOM_RESOURCE_DEFINITIONS.storage, undefined, event.resource)?.metadata.deletionTimestamp) {
      this.schedule(event.resource);
    }
  }

  private serve(crd: KubeObject): void {
    const name = crd.metadata.name as string;
    this.registry.setCustom(name, servedDefinitions(crd, () => this.store.get(CUSTOM_RESOURCE_DEFINITIONS.storage, undefined, name)?.metadata.deletionTimestamp !== undefined));
  }

  private schedule(name: string): void {
    if (this.pending.has(name)) return;
    this.pending.add(name);
    setImmediate(() => {
      this.pending.delete(name);
      if (this.unsubscribe) this.reconcile(name);
    });
  }

  private reconcile(name: string): void {
    const crd = this.store.get(CUSTOM_RESOURCE_DEFINITIONS.storage, undefined, name);
    if (!crd) return;
    if (crd.metadata.deletionTimestamp !== undefined) {
      this.cleanUp(crd);
      return;
    }
    this.api.mutate(CUSTOM_RESOURCE_DEFINITIONS, undefined, name, crd.metadata.uid as string, (next) => {
      const spec = next['spec'] as CrdSpec;
      const status = (next['status'] ?? {}) as Record<string, unknown>;
      const storage = spec.versions.find((v) => v.storage)?.name;
      status['acceptedNames'] = { ...spec.names };
      status['storedVersions'] = [...new Set([...((status['storedVersions'] as string[] | undefined) ?? []), ...(storage ? [storage] : [])])];
      status['conditions'] = [
        this.condition(status, 'NamesAccepted', 'NoConflicts', 'no conflicts found'),
        this.condition(status, 'Established', 'InitialNamesAccepted', 'the initial names have been accepted'),
      ];
      next['status'] = status;
    });
  }

  /** Keeps a condition's transition time when it was already True. */
  private condition(status: Record<string, unknown>, type: string, reason: string, message: string): Record<string, unknown> {
    const previous = ((status['conditions'] as Record<string, unknown>[] | undefined) ?? []).find((c) => c['type'] === type && c['status'] === 'True');
    const time = previous?.['lastTransitionTime'] ?? formatTime(this.clock());
    return { type, status: 'True', lastTransitionTime: time, reason, message };
  }

  /** Deletes every custom resource of a terminating CRD; once none is left, removes the cleanup finalizer. */
  private cleanUp(crd: KubeObject): void {
    const name = crd.metadata.name as string;
    const def = this.registry.byStorage(name);
    const remaining = this.store.list(name);
    if (def) {
      for (const object of remaining.filter((o) => o.metadata.deletionTimestamp === undefined)) {
        try {
          this.api.delete(def, object.metadata.namespace as string, object.metadata.name as string);
        } catch (error) {
          if (!(error instanceof KubeApiError)) throw error;
        }
      }
    }
    if (this.store.list(name).length > 0) return;
    this.api.mutate(CUSTOM_RESOURCE_DEFINITIONS, undefined, name, crd.metadata.uid as string, (next) => {
      next.metadata.finalizers = (next.metadata.finalizers ?? []).filter((f) => f !== CRD_CLEANUP_FINALIZER);
      if (next.metadata.finalizers.length === 0) delete next.metadata.finalizers;
    });
  }
}
