import type { KubeApi } from './kube-api.js';
import type { ObjectStore, StoreEvent } from './object-store.js';
import type { ResourceRegistry } from './resource-registry.js';
import type { ResourceDefinition } from './resources.js';
import { KubeApiError } from './status.js';
import type { KubeObject } from './types.js';

/** `metav1.OwnerReference`. */
interface OwnerReference {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
  controller?: boolean;
  blockOwnerDeletion?: boolean;
}

export const ORPHAN_FINALIZER = 'orphan';
export const FOREGROUND_FINALIZER = 'foregroundDeletion';

function ownerRefs(object: KubeObject): OwnerReference[] {
  const refs = object.metadata['ownerReferences'];
  return Array.isArray(refs) ? (refs as OwnerReference[]) : [];
}

/**
 * The garbage collector of kube-controller-manager, in process: when an owner goes, each dependent (an object whose
 * `metadata.ownerReferences` names the owner's uid) is deleted once none of its owners exists any more (background
 * cascade), or loses the dangling reference when another owner still exists. `propagationPolicy: Orphan` (the
 * `orphan` finalizer) strips the references to the owner from its dependents first; `Foreground`
 * (`foregroundDeletion`) deletes the dependents first and keeps the owner until none that has
 * `blockOwnerDeletion: true` is left. Work runs on the next turn of the event loop, never inside another write.
 */
export class GarbageCollector {
  private unsubscribe?: () => void;
  private scheduled = false;
  private readonly goneOwners = new Set<string>();
  private readonly terminatingOwners = new Map<string, { storage: string; namespace?: string; name: string }>();

  constructor(
    private readonly api: KubeApi,
    private readonly store: ObjectStore,
    private readonly registry: ResourceRegistry,
  ) {}

  start(): void {
    this.unsubscribe = this.store.subscribe((event) => this.onEvent(event));
  }

  stop(): void {
    this.unsubscribe?.();
    this.unsubscribe = undefined;
  }

  private onEvent(event: StoreEvent): void {
    const meta = event.object.metadata;
    if (event.type === 'DELETED') {
      this.goneOwners.add(meta.uid as string);
      this.terminatingOwners.delete(meta.uid as string);
    } else if (meta.deletionTimestamp !== undefined && (meta.finalizers ?? []).some((f) => f === ORPHAN_FINALIZER || f === FOREGROUND_FINALIZER)) {
      this.terminatingOwners.set(meta.uid as string, { storage: event.resource, namespace: meta.namespace, name: meta.name as string });
    } else return;
    this.schedule();
  }

  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      if (this.unsubscribe) this.run();
    });
  }

  private storages(): ResourceDefinition[] {
    const seen = new Map<string, ResourceDefinition>();
    for (const def of this.registry.all()) if (!seen.has(def.storage)) seen.set(def.storage, def);
    return [...seen.values()];
  }

  private dependentsOf(uid: string): { def: ResourceDefinition; object: KubeObject }[] {
    return this.storages().flatMap((def) => this.store.list(def.storage).filter((o) => ownerRefs(o).some((r) => r.uid === uid)).map((object) => ({ def, object })));
  }

  /** Whether an owner reference still resolves to a live object (an unknown kind counts as live, as on a real GC). */
  private ownerExists(ref: OwnerReference, dependent: KubeObject): boolean {
    const def = this.registry.byKind(ref.apiVersion, ref.kind) ?? this.registry.all().find((r) => r.kind === ref.kind && r.group === ref.apiVersion.split('/').slice(0, -1).join('/'));
    if (!def) return true;
    const owner = this.store.get(def.storage, def.namespaced ? dependent.metadata.namespace : undefined, ref.name);
    return owner !== undefined && owner.metadata.uid === ref.uid;
  }

  private run(): void {
    const gone = [...this.goneOwners];
    this.goneOwners.clear();
    for (const uid of gone) {
      for (const { def, object } of this.dependentsOf(uid)) {
        if (ownerRefs(object).some((r) => r.uid !== uid && this.ownerExists(r, object))) this.dropReferences(def, object, uid);
        else if (object.metadata.deletionTimestamp === undefined) this.delete(def, object, 'Background');
      }
    }
    for (const [uid, owner] of [...this.terminatingOwners]) this.finishTerminating(uid, owner);
  }

  private finishTerminating(uid: string, owner: { storage: string; namespace?: string; name: string }): void {
    const def = this.registry.byStorage(owner.storage);
    const current = def && this.store.get(def.storage, owner.namespace, owner.name);
    if (!def || !current || current.metadata.uid !== uid) return;
    const finalizers = current.metadata.finalizers ?? [];
    const dependents = this.dependentsOf(uid);
    if (finalizers.includes(ORPHAN_FINALIZER)) {
      for (const dependent of dependents) this.dropReferences(dependent.def, dependent.object, uid);
      this.removeFinalizer(def, current, ORPHAN_FINALIZER);
    } else if (finalizers.includes(FOREGROUND_FINALIZER)) {
      for (const dependent of dependents.filter((d) => d.object.metadata.deletionTimestamp === undefined)) this.delete(dependent.def, dependent.object, 'Foreground');
      const blocking = this.dependentsOf(uid).filter((d) => ownerRefs(d.object).some((r) => r.uid === uid && r.blockOwnerDeletion === true));
      if (blocking.length === 0) this.removeFinalizer(def, current, FOREGROUND_FINALIZER);
    }
  }

  private delete(def: ResourceDefinition, object: KubeObject, propagationPolicy: 'Background' | 'Foreground'): void {
    try {
      this.api.delete(def, object.metadata.namespace as string, object.metadata.name as string, { propagationPolicy, preconditions: { uid: object.metadata.uid } });
    } catch (error) {
      if (!(error instanceof KubeApiError)) throw error;
    }
  }

  private dropReferences(def: ResourceDefinition, object: KubeObject, uid: string): void {
    this.api.mutate(def, object.metadata.namespace, object.metadata.name as string, object.metadata.uid as string, (next) => {
      const kept = ownerRefs(next).filter((r) => r.uid !== uid);
      if (kept.length > 0) next.metadata['ownerReferences'] = kept;
      else delete next.metadata['ownerReferences'];
    });
  }

  private removeFinalizer(def: ResourceDefinition, object: KubeObject, finalizer: string): void {
    this.api.mutate(def, object.metadata.namespace, object.metadata.name as string, object.metadata.uid as string, (next) => {
      const kept = (next.metadata.finalizers ?? []).filter((f) => f !== finalizer);
      if (kept.length > 0) next.metadata.finalizers = kept;
      else delete next.metadata.finalizers;
    });
  }
}
