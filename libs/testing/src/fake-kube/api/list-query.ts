import { parseFieldSelector } from './field-selector.js';
import { parseLabelSelector, SelectorParseError } from './label-selector.js';
import type { ResourceDefinition } from './resources.js';
import { Statuses } from './status.js';
import type { KubeObject } from './types.js';

/** Query options of list, watch and deletecollection. */
export interface ListOptions {
  labelSelector?: string;
  fieldSelector?: string;
  /** Page size; 0/undefined → everything. */
  limit?: number;
  /** Opaque token from a previous page's `metadata.continue`. */
  continue?: string;
}

/** Builds the predicate "in this namespace and matching both selectors"; malformed selectors → 400. */
export function buildMatcher(
  def: ResourceDefinition,
  namespace: string | undefined,
  options: Pick<ListOptions, 'labelSelector' | 'fieldSelector'>,
): (object: KubeObject) => boolean {
  try {
    const labels = parseLabelSelector(options.labelSelector);
    const fields = parseFieldSelector(options.fieldSelector);
    fields.assertSupported(def.fields);
    return (object) =>
      (namespace === undefined || object.metadata.namespace === namespace) &&
      labels.matches(object.metadata.labels) &&
      fields.matches(object, def.fields);
  } catch (error) {
    if (error instanceof SelectorParseError) throw Statuses.badRequest(error.message);
    throw error;
  }
}

interface ContinueToken {
  /** resourceVersion of the first page, kept constant across pages. */
  rv: string;
  /** `namespace/name` of the last item already returned. */
  start: string;
}

export function encodeContinue(token: ContinueToken): string {
  return Buffer.from(JSON.stringify({ v: 'fake.kube/v1', ...token })).toString('base64url');
}

export function decodeContinue(raw: string): ContinueToken {
  try {
    const parsed = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8')) as Record<string, unknown>;
    if (parsed['v'] === 'fake.kube/v1' && typeof parsed['rv'] === 'string' && typeof parsed['start'] === 'string') {
      return { rv: parsed['rv'], start: parsed['start'] };
    }
  } catch {
    // fall through to the 400 below
  }
  throw Statuses.badRequest('continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)');
}

/** One page of results. */
export interface Page {
  items: KubeObject[];
  resourceVersion: string;
  continue?: string;
  remainingItemCount?: number;
}

/**
 * Cuts `items` (sorted by namespace/name) into a page. Pages after the first reflect the current state (not a
 * snapshot at the first page's resourceVersion), which is the documented deviation from a real server.
 */
export function paginate(items: KubeObject[], currentRv: string, options: ListOptions): Page {
  let rv = currentRv;
  let remaining = items;
  if (options.continue) {
    const token = decodeContinue(options.continue);
    rv = token.rv;
    remaining = items.filter((o) => `${o.metadata.namespace ?? ''}/${o.metadata.name}` > token.start);
  }
  const limit = options.limit ?? 0;
  if (limit <= 0 || remaining.length <= limit) return { items: remaining, resourceVersion: rv };
  const page = remaining.slice(0, limit);
  const last = page[page.length - 1] as KubeObject;
  return {
    items: page,
    resourceVersion: rv,
    continue: encodeContinue({ rv, start: `${last.metadata.namespace ?? ''}/${last.metadata.name}` }),
    remainingItemCount: remaining.length - limit,
  };
}
