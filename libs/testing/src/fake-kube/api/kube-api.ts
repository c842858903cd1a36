import { randomUUID } from 'node:crypto';
import { applyJsonPatch, decodeJsonPatch, JsonPatchApplyError, JsonPatchDecodeError, jsonEqual } from './json-patch.js';
import { formatTime, randomNameSuffix, systemClock, type Clock } from './kube-time.js';
import { buildMatcher, paginate, type ListOptions } from './list-query.js';
import { FOREGROUND_FINALIZER, ORPHAN_FINALIZER } from './garbage-collector.js';
import { applyMergePatch } from './merge-patch.js';
import { unsupportedStrategicElement } from './strategic-merge-patch.js';
import type { ObjectStore } from './object-store.js';
import { PODS, type ResourceDefinition } from './resources.js';
import { validateObjectMeta } from './rules/resource-rules.js';
import { KubeApiError, Statuses, successStatus, type FieldError } from './status.js';
import { cloneJson, isJsonObject, type KubeObject, type Status } from './types.js';

export type { ListOptions } from './list-query.js';

export interface WriteOptions {
  /** `dryRun=All`: validate and answer, but store nothing. */
  dryRun?: boolean;
  /** `status` for the /status subresource. */
  subresource?: 'status';
  /**
   * `fieldValidation`: what to do with fields a custom resource's schema does not declare (pruned in every case):
   * `Strict` → 400, `Warn` (the default, as on a real server) → a warning in `warnings`, `Ignore` → nothing.
   */
  fieldValidation?: 'Strict' | 'Warn' | 'Ignore';
  /** Filled with the `Warning` headers the response should carry. */
  warnings?: string[];
}

export interface DeleteOptions {
  dryRun?: boolean;
  /** How dependents (owner references) go: in the background after the owner (default), before it, or kept. */
  propagationPolicy?: 'Foreground' | 'Background' | 'Orphan';
  gracePeriodSeconds?: number;
  preconditions?: { uid?: string; resourceVersion?: string };
}

/**
 * `application/json-patch+json` (RFC 6902), `application/merge-patch+json` (RFC 7386) or
 * `application/strategic-merge-patch+json` (objects and scalars only: see strategic-merge-patch.ts).
 */
export type PatchKind = 'json' | 'merge' | 'strategic';

/** What a real server lists when a custom resource is sent a strategic merge patch (415). */
const CUSTOM_RESOURCE_PATCH_TYPES = ['application/json-patch+json', 'application/merge-patch+json', 'application/apply-patch+yaml'];

/** A `PodList`/`SecretList`/`LeaseList`. */
export interface KubeList {
  kind: string;
  apiVersion: string;
  metadata: { resourceVersion: string; continue?: string; remainingItemCount?: number };
  items: KubeObject[];
}

/** Server-managed metadata a client cannot change through an update. */
const SERVER_META = ['uid', 'creationTimestamp', 'deletionTimestamp', 'deletionGracePeriodSeconds', 'namespace', 'name', 'generation'] as const;

/** What `metadata.generation` tracks: everything but metadata (and status, behind a status subresource). */
function generationRelevant(def: ResourceDefinition, object: KubeObject): unknown {
  const { metadata: _m, status, ...rest } = object;
  return def.hasStatus ? rest : { ...rest, status };
}

/**
 * The registry: REST semantics of a real API server (server-set metadata, validation, optimistic concurrency,
 * patches, graceful deletion) on top of the ObjectStore. The HTTP router and the kubelet simulator both call it;
 * every failure is a KubeApiError carrying the Status body to send.
 */
export class KubeApi {
  private readonly clock: Clock;

  constructor(
    readonly store: ObjectStore,
    options: { clock?: Clock } = {},
  ) {
    this.clock = options.clock ?? systemClock;
  }

  get(def: ResourceDefinition, namespace: string, name: string): KubeObject {
    const found = this.store.get(def.storage, def.namespaced ? namespace : undefined, name);
    if (!found) throw Statuses.notFound(def, name);
    return found;
  }

  list(def: ResourceDefinition, namespace: string | undefined, options: ListOptions = {}): KubeList {
    const matches = buildMatcher(def, namespace, options);
    const all = this.store.list(def.storage, def.namespaced ? namespace : undefined).filter(matches);
    const page = paginate(all, String(this.store.resourceVersion), options);
    const metadata: KubeList['metadata'] = { resourceVersion: page.resourceVersion };
    if (page.continue) {
      metadata.continue = page.continue;
      metadata.remainingItemCount = page.remainingItemCount;
    }
    // Items of a list carry no kind/apiVersion on the wire, exactly like a real server's typed lists.
    const items = page.items.map(({ kind: _k, apiVersion: _a, ...rest }) => rest as KubeObject);
    return { kind: def.listKind, apiVersion: def.apiVersion, metadata, items };
  }

  create(def: ResourceDefinition, namespace: string, body: unknown, options: WriteOptions = {}): KubeObject {
    const rules = def.rules;
    const object = this.decodeBody(def, body, namespace);
    const meta = object.metadata;
    if (meta.resourceVersion) throw Statuses.badRequest('resourceVersion should not be set on objects to be created');
    if (!meta.name) {
      if (!meta.generateName) {
        throw Statuses.invalid(def, '', [{ type: 'Required', field: 'metadata.name', detail: 'name or generateName is required' }]);
      }
      meta.name = this.freeGeneratedName(def, namespace, meta.generateName);
    }
    if (def.namespaced) meta.namespace = namespace;
    else delete meta.namespace;
    meta.uid = randomUUID();
    meta.creationTimestamp = formatTime(this.clock());
    delete meta.deletionTimestamp;
    delete meta.deletionGracePeriodSeconds;
    if (def.tracksGeneration) meta.generation = 1;
    else delete meta.generation;
    if (!rules.statusIsOrdinaryField) delete object['status'];
    this.prune(def, object, options);
    rules.applyDefaults?.(object);
    rules.prepareForCreate?.(object);
    this.assertValid(def, object, [...validateObjectMeta(object), ...(rules.validate?.(object) ?? [])]);
    if (this.store.get(def.storage, meta.namespace, meta.name)) throw Statuses.alreadyExists(def, meta.name);
    if (options.dryRun) return object;
    return this.store.create(def.storage, object);
  }

  /** PUT: full replacement (or only `status` with `subresource: 'status'`). */
  replace(def: ResourceDefinition, namespace: string, name: string, body: unknown, options: WriteOptions = {}): KubeObject {
    const current = this.get(def, namespace, name);
    const object = this.decodeBody(def, body, namespace);
    return this.update(def, current, object, options);
  }

  patch(def: ResourceDefinition, namespace: string, name: string, kind: PatchKind, patch: unknown, options: WriteOptions = {}): KubeObject {
    const current = this.get(def, namespace, name);
    let patched: unknown;
    if (kind === 'strategic' && !def.strategicMerge) throw Statuses.unsupportedMediaType(CUSTOM_RESOURCE_PATCH_TYPES);
    if (kind === 'merge' || kind === 'strategic') {
      if (!isJsonObject(patch)) throw Statuses.badRequest('Invalid JSON Patch');
      const unsupported = kind === 'strategic' ? unsupportedStrategicElement(patch) : undefined;
      if (unsupported !== undefined) throw Statuses.strategicMergeUnsupported(unsupported);
      patched = applyMergePatch(current, patch);
    } else {
      try {
        patched = applyJsonPatch(current, decodeJsonPatch(patch));
      } catch (error) {
        if (error instanceof JsonPatchDecodeError) throw Statuses.badRequest(error.message);
        if (error instanceof JsonPatchApplyError) throw Statuses.patchNotApplicable();
        throw error;
      }
    }
    return this.update(def, current, this.decodeBody(def, patched, namespace), options);
  }

  delete(def: ResourceDefinition, namespace: string, name: string, options: DeleteOptions = {}): KubeObject | Status {
    const current = this.get(def, namespace, name);
    this.checkDeletePreconditions(def, current, options);
    // Finalizers the server itself adds on the first delete (a CRD's custom resource cleanup).
    for (const added of def.rules.deleteFinalizers ?? []) {
      if (current.metadata.deletionTimestamp === undefined && !(current.metadata.finalizers ?? []).includes(added)) {
        current.metadata.finalizers = [...(current.metadata.finalizers ?? []), added];
      }
    }
    // Orphan and Foreground deletion are finalizers the garbage collector acts on (garbage-collector.ts).
    const policyFinalizer = options.propagationPolicy === 'Orphan' ? ORPHAN_FINALIZER : options.propagationPolicy === 'Foreground' ? FOREGROUND_FINALIZER : undefined;
    if (policyFinalizer && !(current.metadata.finalizers ?? []).includes(policyFinalizer)) current.metadata.finalizers = [...(current.metadata.finalizers ?? []), policyFinalizer];
    const finalizers = current.metadata.finalizers ?? [];
    let grace = 0;
    if (def === PODS) {
      const spec = (current['spec'] ?? {}) as Record<string, unknown>;
      const phase = ((current['status'] ?? {}) as Record<string, unknown>)['phase'];
      grace = Math.max(0, options.gracePeriodSeconds ?? (spec['terminationGracePeriodSeconds'] as number | undefined) ?? 30);
      // Unscheduled and terminal pods have no running containers to stop: the real server deletes them at once.
      if (!spec['nodeName'] || phase === 'Failed' || phase === 'Succeeded') grace = 0;
    }
    const terminating = current.metadata.deletionTimestamp !== undefined;
    const previousGrace = current.metadata.deletionGracePeriodSeconds ?? 0;
    if (grace === 0 && finalizers.length === 0) {
      if (options.dryRun) return def.returnsDeletedObject ? current : successStatus(def, name, current.metadata.uid);
      const last = this.store.remove(def.storage, current.metadata.namespace, name) as KubeObject;
      return def.returnsDeletedObject ? last : successStatus(def, name, last.metadata.uid);
    }
    if (terminating && grace >= previousGrace) return current;
    const next = cloneJson(current);
    next.metadata.deletionTimestamp = formatTime(new Date(this.clock().getTime() + grace * 1000));
    next.metadata.deletionGracePeriodSeconds = grace;
    // As the real BeforeDelete: setting deletionTimestamp is a new generation of an object that has one.
    if (!terminating && next.metadata.generation !== undefined) next.metadata.generation += 1;
    if (options.dryRun) return next;
    return this.store.update(def.storage, next);
  }

  deleteCollection(def: ResourceDefinition, namespace: string, query: ListOptions, options: DeleteOptions = {}): KubeList {
    const targets = this.list(def, namespace, { labelSelector: query.labelSelector, fieldSelector: query.fieldSelector });
    const items: KubeObject[] = [];
    for (const item of targets.items) {
      try {
        const result = this.delete(def, namespace, item.metadata.name as string, options);
        items.push(result.kind === 'Status' ? item : (result as KubeObject));
      } catch (error) {
        if (!(error instanceof KubeApiError && error.code === 404)) throw error;
      }
    }
    return { kind: def.listKind, apiVersion: def.apiVersion, metadata: { resourceVersion: String(this.store.resourceVersion) }, items };
  }

  /**
   * Internal write used by the scheduler/kubelet simulation: mutates a pod without validation (like the binding
   * and status paths). Ignores the call when the pod is gone or was replaced (uid differs). No-op writes are
   * skipped, as on a real server.
   */
  mutatePod(namespace: string, name: string, uid: string, mutate: (pod: KubeObject) => void): KubeObject | undefined {
    return this.mutate(PODS, namespace, name, uid, mutate);
  }

  /** `mutatePod` for any resource: the in-process controllers' (CRD status, garbage collector) unvalidated write. */
  mutate(def: ResourceDefinition, namespace: string | undefined, name: string, uid: string, mutate: (object: KubeObject) => void): KubeObject | undefined {
    const current = this.store.get(def.storage, def.namespaced ? namespace : undefined, name);
    if (!current || current.metadata.uid !== uid) return undefined;
    const next = cloneJson(current);
    mutate(next);
    return this.commit(def, current, next, false);
  }

  /** The kubelet's final "delete with grace 0" after it stopped the pod's containers. */
  finalizePod(namespace: string, name: string, uid: string): void {
    const current = this.store.get(PODS.storage, namespace, name);
    if (!current || current.metadata.uid !== uid || current.metadata.deletionTimestamp === undefined) return;
    if ((current.metadata.finalizers ?? []).length > 0) {
      const next = cloneJson(current);
      next.metadata.deletionGracePeriodSeconds = 0;
      this.commit(PODS, current, next, false);
      return;
    }
    this.store.remove(PODS.storage, namespace, name);
  }

  private update(def: ResourceDefinition, current: KubeObject, incoming: KubeObject, options: WriteOptions): KubeObject {
    const rules = def.rules;
    const name = current.metadata.name as string;
    const requested = incoming.metadata;
    if (requested.name !== undefined && requested.name !== name) {
      throw Statuses.badRequest(`the name of the object (${requested.name}) does not match the name on the URL (${name})`);
    }
    if (requested.resourceVersion && requested.resourceVersion !== current.metadata.resourceVersion) {
      throw Statuses.conflict(def, name);
    }
    if (requested.uid && requested.uid !== current.metadata.uid) {
      throw Statuses.conflict(def, name, `Precondition failed: UID in precondition: ${requested.uid}, UID in object meta: ${current.metadata.uid}`);
    }
    let next: KubeObject;
    if (options.subresource === 'status') {
      next = cloneJson(current);
      next['status'] = cloneJson(incoming['status']);
      if (next['status'] === undefined) delete next['status'];
      this.prune(def, next, options);
      rules.applyDefaults?.(next);
      this.assertValid(def, next, rules.validateStatus?.(next, current) ?? []);
    } else {
      next = incoming;
      for (const key of SERVER_META) {
        if (current.metadata[key] === undefined) delete next.metadata[key];
        else next.metadata[key] = cloneJson(current.metadata[key]) as never;
      }
      if (rules.prepareForUpdate) rules.prepareForUpdate(next, current);
      else if (current['status'] !== undefined) next['status'] = cloneJson(current['status']);
      else delete next['status'];
      this.prune(def, next, options);
      rules.applyDefaults?.(next);
      this.assertValid(def, next, [
        ...validateObjectMeta(next),
        ...(rules.validate?.(next) ?? []),
        ...(rules.validateUpdate?.(next, current) ?? []),
      ]);
      if (def.tracksGeneration && !jsonEqual(generationRelevant(def, next), generationRelevant(def, current))) {
        next.metadata.generation = (current.metadata.generation ?? 0) + 1;
      }
    }
    next.metadata.resourceVersion = current.metadata.resourceVersion;
    return this.commit(def, current, next, options.dryRun ?? false);
  }

  /** Stores `next` unless nothing changed; completes a deletion whose last finalizer was just removed. */
  private commit(def: ResourceDefinition, current: KubeObject, next: KubeObject, dryRun: boolean): KubeObject {
    next.metadata.resourceVersion = current.metadata.resourceVersion;
    if (jsonEqual(next, current) || dryRun) return next;
    const meta = next.metadata;
    const deletable =
      meta.deletionTimestamp !== undefined &&
      (meta.finalizers ?? []).length === 0 &&
      (def !== PODS || meta.deletionGracePeriodSeconds === 0);
    if (deletable) {
      return this.store.remove(def.storage, meta.namespace, meta.name as string, next) as KubeObject;
    }
    return this.store.update(def.storage, next);
  }

  private decodeBody(def: ResourceDefinition, body: unknown, namespace: string): KubeObject {
    if (!isJsonObject(body)) {
      throw Statuses.badRequest(`the object provided is unrecognized (must be of type ${def.kind}): couldn't get version/kind; json parse error: expected an object`);
    }
    const object = cloneJson(body) as KubeObject;
    if (object.apiVersion !== undefined && object.apiVersion !== def.apiVersion) {
      throw Statuses.badRequest(`the API version in the data (${String(object.apiVersion)}) does not match the expected API version (${def.apiVersion})`);
    }
    if (object.kind !== undefined && object.kind !== def.kind) {
      throw Statuses.badRequest(`${String(object.kind)} in version "${def.version}" cannot be handled as a ${def.kind}: the kind of the object does not match`);
    }
    if (object.metadata !== undefined && !isJsonObject(object.metadata)) {
      throw Statuses.badRequest(`${def.kind} in version "${def.version}" cannot be handled as a ${def.kind}: metadata must be an object`);
    }
    object.metadata ??= {};
    if (def.namespaced && object.metadata.namespace !== undefined && object.metadata.namespace !== '' && object.metadata.namespace !== namespace) {
      throw Statuses.badRequest('the namespace of the provided object does not match the namespace sent on the request');
    }
    def.rules.decode?.(object);
    object.apiVersion = def.apiVersion;
    object.kind = def.kind;
    return object;
  }

  /** Drops fields a custom resource's schema does not declare, as the real decoder does (`fieldValidation`). */
  private prune(def: ResourceDefinition, object: KubeObject, options: WriteOptions): void {
    const unknown = def.rules.prune?.(object) ?? [];
    if (unknown.length === 0 || options.fieldValidation === 'Ignore') return;
    if (options.fieldValidation === 'Strict') {
      const fields = unknown.map((f) => `unknown field ${JSON.stringify(f)}`).join(', ');
      throw Statuses.badRequest(`${def.kind} in version "${def.version}" cannot be handled as a ${def.kind}: strict decoding error: ${fields}`);
    }
    options.warnings?.push(...unknown.map((f) => `unknown field ${JSON.stringify(f)}`));
  }

  private assertValid(def: ResourceDefinition, object: KubeObject, errors: FieldError[]): void {
    if (errors.length > 0) throw Statuses.invalid(def, object.metadata.name ?? '', errors);
  }

  private checkDeletePreconditions(def: ResourceDefinition, current: KubeObject, options: DeleteOptions): void {
    const name = current.metadata.name as string;
    const wanted = options.preconditions ?? {};
    if (wanted.uid && wanted.uid !== current.metadata.uid) {
      throw Statuses.conflict(def, name, `Precondition failed: UID in precondition: ${wanted.uid}, UID in object meta: ${current.metadata.uid}`);
    }
    if (wanted.resourceVersion && wanted.resourceVersion !== current.metadata.resourceVersion) {
      throw Statuses.conflict(
        def,
        name,
        `Precondition failed: ResourceVersion in precondition: ${wanted.resourceVersion}, ResourceVersion in object meta: ${current.metadata.resourceVersion}`,
      );
    }
  }

  private freeGeneratedName(def: ResourceDefinition, namespace: string, prefix: string): string {
    for (let attempt = 0; attempt < 8; attempt++) {
      const candidate = `${prefix}${randomNameSuffix()}`;
      if (!this.store.get(def.storage, def.namespaced ? namespace : undefined, candidate)) return candidate;
    }
    return `${prefix}${randomNameSuffix()}`;
  }
}
