import { isJsonObject } from './types.js';

/**
 * The part of `application/strategic-merge-patch+json` the fake implements: patches whose result is the same
 * as an RFC 7386 merge patch. That holds for every patch made only of objects and scalars — objects merge key
 * by key, `null` deletes a key — which covers what clients send by default for metadata (python3-kubernetes
 * for any dict body, `kubectl patch` without `--type`): labels, annotations, Lease and Secret fields.
 *
 * Lists are where strategic merge differs (merged by a per-field key such as `name` for containers/env/volumes,
 * `containerPort` for ports; kept as a set for finalizers; replaced for atomic lists), and so do the `$patch`,
 * `$retainKeys`, `$setElementOrder/…` and `$deleteFromPrimitiveList/…` directives. The fake has no per-field
 * schema, so such a patch is refused with a message naming its first list or directive — never applied with
 * merge-patch semantics a real server would not have.
 */

/** JSON path (`metadata.finalizers`) of the first element this fake cannot apply as a strategic merge, if any. */
export function unsupportedStrategicElement(patch: unknown, path = ''): string | undefined {
  if (Array.isArray(patch)) return path === '' ? '(the patch itself is a list)' : path;
  if (!isJsonObject(patch)) return undefined;
  for (const [key, value] of Object.entries(patch)) {
    const here = path === '' ? key : `${path}.${key}`;
    if (key.startsWith('$')) return here;
    const found = unsupportedStrategicElement(value, here);
    if (found !== undefined) return found;
  }
  return undefined;
}
