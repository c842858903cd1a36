import { canonicalJson, compareQuantities, parseQuantity } from '@cli-mcp/podspec';
import type { KubeObject } from '../kube/resources.js';

/**
 * How a desired child is compared with and written onto the live object (C-OP-3). "Contains" is a subset test:
 * every field the operator renders must be on the live object with the same value, while fields the API server
 * defaulted (a container's terminationMessagePath, a Service's clusterIP) or another writer added (a label, an
 * annotation) are ignored — so defaulting never looks like drift and never causes a write loop. Quantities compare
 * by value (`0.5` = `500m`), since the API server rewrites them in canonical form.
 */
export function containsDesired(live: unknown, desired: unknown, path: readonly string[] = []): boolean {
  if (desired === undefined) return true;
  if (Array.isArray(desired)) {
    return Array.isArray(live) && live.length === desired.length && desired.every((item, i) => containsDesired(live[i], item, path));
  }
  if (isObject(desired)) {
    return isObject(live) && Object.entries(desired).every(([key, value]) => containsDesired(live[key], value, [...path, key]));
  }
  if (live === desired) return true;
  return underResources(path) && (typeof live === 'string' || typeof live === 'number') && (typeof desired === 'string' || typeof desired === 'number') && sameQuantity(String(live), String(desired));
}

/** Whether every `exact` path holds the same JSON on both (key order aside). */
export function matchesExactly(live: KubeObject, desired: KubeObject, exact: ReadonlyArray<readonly string[]>): boolean {
  return exact.every((path) => canonicalJson(getPath(live as Record<string, unknown>, path) ?? null) === canonicalJson(getPath(desired as Record<string, unknown>, path) ?? null));
}

/**
 * The object to PUT: the live one (its resourceVersion makes the write conditional), with the desired labels,
 * annotations and owner reference merged in key by key, and every owned path replaced whole by the desired value
 * (removed when the desired object has none), so a field the operator stopped rendering goes away too.
 */
export function mergeOwned(live: KubeObject, desired: KubeObject, owned: ReadonlyArray<readonly string[]>): KubeObject {
  const result = structuredClone(live);
  const meta = (result.metadata ??= {});
  const wanted = desired.metadata ?? {};
  meta.labels = { ...(meta.labels ?? {}), ...(wanted.labels ?? {}) };
  meta.annotations = { ...(meta.annotations ?? {}), ...(wanted.annotations ?? {}) };
  const refs = [...(meta.ownerReferences ?? [])];
  for (const ref of wanted.ownerReferences ?? []) if (!refs.some((r) => r.uid === ref.uid)) refs.push(ref);
  meta.ownerReferences = refs;
  for (const path of owned) setPath(result as Record<string, unknown>, path, structuredClone(getPath(desired as Record<string, unknown>, path)));
  return result;
}

function getPath(object: Record<string, unknown>, path: readonly string[]): unknown {
  let current: unknown = object;
  for (const key of path) current = isObject(current) ? current[key] : undefined;
  return current;
}

function setPath(object: Record<string, unknown>, path: readonly string[], value: unknown): void {
  let current = object;
  for (const key of path.slice(0, -1)) {
    if (!isObject(current[key])) current[key] = {};
    current = current[key] as Record<string, unknown>;
  }
  const last = path[path.length - 1]!;
  if (value === undefined) delete current[last];
  else current[last] = value;
}

function underResources(path: readonly string[]): boolean {
  const at = path.lastIndexOf('resources');
  return at >= 0 && (path[at + 1] === 'requests' || path[at + 1] === 'limits');
}

function sameQuantity(a: string, b: string): boolean {
  const x = parseQuantity(a, 'live');
  const y = parseQuantity(b, 'desired');
  return x.ok && y.ok && compareQuantities(x.value, y.value) === 0;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof Date);
}
