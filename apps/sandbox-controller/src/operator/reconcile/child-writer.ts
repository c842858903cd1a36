import { createHash } from 'node:crypto';
import { canonicalJson } from '@cli-mcp/podspec';
import { isAlreadyExists, isConflict, isNotFound } from '@cli-mcp/kube';
import type { Clock } from '@cli-mcp/common';
import type { DesiredChild } from '../children/desired-child.js';
import { isOwnedBy, type InstanceOwner } from '../children/owner.js';
import type { ObjectApi } from '../kube/object-api.port.js';
import type { KubeObject, ResourceRef } from '../kube/resources.js';
import { containsDesired, matchesExactly, mergeOwned } from './object-merge.js';

/** Annotation: hash of what the operator last rendered for this object (a change of rendering → a write). */
export const APPLIED_HASH_ANNOTATION = 'cli-mcp.redhat.com/applied-hash';

/** Where a child stands after `ensure`. */
export type ChildState =
  /** On the cluster as rendered. */
  | { readonly state: 'ok' }
  /** Written now, or waiting (cache lag, a concurrent write, an old object being deleted): the watch brings the next step. */
  | { readonly state: 'pending'; readonly message: string }
  /** Not the operator's to change: someone else's object of that name, or one another writer keeps changing. */
  | { readonly state: 'blocked'; readonly message: string };

export interface ChildWriterDeps {
  readonly api: ObjectApi;
  /** The live object from the informer of its kind. */
  readonly lookup: (resource: ResourceRef, name: string) => KubeObject | undefined;
  readonly clock: Clock;
}

/** A rendered field changed by someone else this many times within the window: the operator stops rewriting it. */
export const MAX_CORRECTIONS = 3;
export const CORRECTION_WINDOW_MS = 10 * 60_000;

/**
 * Writes children with create / update-with-resourceVersion (C-OP-3; why not server-side apply:
 * docs/operator.md "Decisions"). A child is written when its rendering changed (the applied-hash annotation) or a
 * field the operator renders was changed on the cluster; every write is conditional on the resourceVersion it was
 * decided on (409: someone wrote first — decide again on the next event). Where an added key changes the meaning
 * (selectors, RBAC rules and subjects, NetworkPolicy specs) the comparison is exact. It never fights another writer: an
 * object of the same name it does not own is never touched, and a rendered field that keeps being changed back
 * (an HPA on `replicas`, another controller) is left alone after {@link MAX_CORRECTIONS} corrections within
 * {@link CORRECTION_WINDOW_MS}, and reported instead.
 */
export class ChildWriter {
  private readonly corrections = new Map<string, { hash: string; at: number[] }>();

  constructor(private readonly deps: ChildWriterDeps) {}

  async ensure(child: DesiredChild, owner: InstanceOwner, signal: AbortSignal): Promise<ChildState> {
    const { api, lookup } = this.deps;
    const hash = appliedHash(child.object);
    const desired = withAppliedHash(child.object, hash);
    const name = desired.metadata?.name ?? '';
    const what = `${child.resource.kind} ${name}`;
    const live = lookup(child.resource, name);
    if (!live) {
      try {
        await api.create(child.resource, desired, signal);
        return { state: 'pending', message: `${what} created` };
      } catch (error) {
        if (isAlreadyExists(error)) return { state: 'pending', message: `${what} exists but is not in the cache yet` };
        throw error;
      }
    }
    if (!isOwnedBy(live.metadata, owner)) return { state: 'blocked', message: `${what} exists and is not owned by this CliMcpInstance (delete it, or choose another instance name)` };
    if (live.metadata?.deletionTimestamp) return { state: 'pending', message: `${what} is being deleted` };
    const rendered = live.metadata?.annotations?.[APPLIED_HASH_ANNOTATION] === hash;
    if (rendered && containsDesired(live, desired) && matchesExactly(live, desired, child.exact ?? [])) return { state: 'ok' };
    const key = `${child.resource.plural}/${name}`;
    if (rendered && this.tooManyCorrections(key, hash)) {
      return { state: 'blocked', message: `${what} keeps being changed by another writer; the operator stopped rewriting it (set the value in the CliMcpInstance, or stop the other writer)` };
    }
    try {
      await api.replace(child.resource, mergeOwned(live, desired, child.owned), signal);
      return { state: 'pending', message: `${what} updated` };
    } catch (error) {
      if (isConflict(error) || isNotFound(error)) return { state: 'pending', message: `${what} changed meanwhile` };
      throw error;
    }
  }

  /** Counts a correction of a rendered field; true once the window holds too many. */
  private tooManyCorrections(key: string, hash: string): boolean {
    const now = this.deps.clock.now();
    const entry = this.corrections.get(key);
    const at = entry && entry.hash === hash ? entry.at.filter((t) => now - t < CORRECTION_WINDOW_MS) : [];
    if (at.length >= MAX_CORRECTIONS) {
      this.corrections.set(key, { hash, at });
      return true;
    }
    this.corrections.set(key, { hash, at: [...at, now] });
    return false;
  }
}

/** sha256 (16 hex) of the canonical JSON of what the operator renders for an object. */
export function appliedHash(object: KubeObject): string {
  return createHash('sha256').update(canonicalJson(object), 'utf8').digest('hex').slice(0, 16);
}

function withAppliedHash(object: KubeObject, hash: string): KubeObject {
  const copy = structuredClone(object);
  copy.metadata = { ...copy.metadata, annotations: { ...(copy.metadata?.annotations ?? {}), [APPLIED_HASH_ANNOTATION]: hash } };
  return copy;
}
