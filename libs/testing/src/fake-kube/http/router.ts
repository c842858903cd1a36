import type { DeleteOptions, KubeApi, PatchKind } from '../api/kube-api.js';
import type { ObjectStore } from '../api/object-store.js';
import { Statuses } from '../api/status.js';
import type { ResourceRegistry } from '../api/resource-registry.js';
import type { ResourceDefinition } from '../api/resources.js';
import { isJsonObject, type KubeObject } from '../api/types.js';
import { toTable, type IncludeObject } from './table.js';
import { WatchSession } from '../api/watch-session.js';
import { discoveryDocument, namespaceObject } from './discovery.js';
import { formatTime } from '../api/kube-time.js';
import { boolParam, intParam } from './query-params.js';
import type { UserInfo } from './authn.js';
import type { RequestInfo } from './request-info.js';

/** Everything the router needs from the server. */
export interface RouterContext {
  api: KubeApi;
  store: ObjectStore;
  registry: ResourceRegistry;
  /** The request asked for `meta.k8s.io` Tables (`kubectl get`): served for resources with printer columns. */
  asTable: boolean;
  /** `127.0.0.1:PORT`, for `/api`'s serverAddressByClientCIDRs. */
  serverAddress: string;
  bookmarkIntervalMs: number;
  /** Start time of the server (creationTimestamp of the implicit namespaces). */
  startedAt: Date;
  /** Who made the request. */
  user: UserInfo;
}

/** What to send back. */
export type RouteResult =
  | { type: 'json'; code: number; body: unknown; headers?: Record<string, string> }
  | { type: 'text'; code: number; body: string }
  /** `encode` turns each event's object into what goes on the wire (a one-row Table for kubectl). */
  | { type: 'watch'; session: WatchSession; encode?: (object: KubeObject) => unknown };

/** Body as received. */
export interface RawBody {
  text: string;
  contentType: string | undefined;
}

/** Media types accepted for create/update bodies (real servers also take YAML, protobuf and CBOR). */
export const ACCEPTED_BODY_TYPES = ['application/json'] as const;
/** Patch types the fake implements (strategic merge for objects and scalars only); apply answers 415 (docs/fake-kube.md). */
export const ACCEPTED_PATCH_TYPES = ['application/json-patch+json', 'application/merge-patch+json', 'application/strategic-merge-patch+json'] as const;

function mediaType(contentType: string | undefined): string {
  return (contentType ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
}

function parseJson(text: string, kind: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw Statuses.badRequest(
      `the object provided is unrecognized (must be of type ${kind}): couldn't get version/kind; json parse error: ${(error as Error).message}`,
    );
  }
}

function objectBody(body: RawBody, kind: string): unknown {
  const type = mediaType(body.contentType);
  if (type !== '' && type !== 'application/json') throw Statuses.unsupportedMediaType(ACCEPTED_BODY_TYPES);
  return parseJson(body.text, kind);
}

function patchBody(body: RawBody, kind: string): { patchKind: PatchKind; patch: unknown } {
  const type = mediaType(body.contentType);
  if (type === 'application/json-patch+json') return { patchKind: 'json', patch: parseJson(body.text, kind) };
  if (type === 'application/merge-patch+json') return { patchKind: 'merge', patch: parseJson(body.text, kind) };
  if (type === 'application/strategic-merge-patch+json') return { patchKind: 'strategic', patch: parseJson(body.text, kind) };
  throw Statuses.unsupportedMediaType(ACCEPTED_PATCH_TYPES);
}

function deleteOptions(info: RequestInfo, body: RawBody): DeleteOptions {
  const options: DeleteOptions = {};
  if (body.text.trim() !== '') {
    const parsed = parseJson(body.text, 'DeleteOptions');
    if (isJsonObject(parsed)) {
      if (typeof parsed['gracePeriodSeconds'] === 'number') options.gracePeriodSeconds = parsed['gracePeriodSeconds'];
      if (isJsonObject(parsed['preconditions'])) options.preconditions = parsed['preconditions'] as DeleteOptions['preconditions'];
      if (Array.isArray(parsed['dryRun']) && parsed['dryRun'].includes('All')) options.dryRun = true;
      if (typeof parsed['propagationPolicy'] === 'string') options.propagationPolicy = propagation(parsed['propagationPolicy']);
      if (typeof parsed['orphanDependents'] === 'boolean') options.propagationPolicy ??= parsed['orphanDependents'] ? 'Orphan' : 'Background';
    }
  }
  const policy = info.query.get('propagationPolicy');
  if (policy !== null) options.propagationPolicy = propagation(policy);
  const grace = intParam(info.query, 'gracePeriodSeconds');
  if (grace !== undefined) options.gracePeriodSeconds = grace;
  if (info.query.getAll('dryRun').includes('All')) options.dryRun = true;
  return options;
}

/** The `authentication.k8s.io/v1` SelfSubjectReview a real server answers: the caller's UserInfo. */
function selfSubjectReview(user: UserInfo): object {
  return { kind: 'SelfSubjectReview', apiVersion: 'authentication.k8s.io/v1', metadata: { creationTimestamp: null }, status: { userInfo: user } };
}

function propagation(value: string): DeleteOptions['propagationPolicy'] {
  if (value === 'Foreground' || value === 'Background' || value === 'Orphan') return value;
  throw Statuses.badRequest(`propagationPolicy: Unsupported value: "${value}": supported values: "Foreground", "Background", "Orphan"`);
}

function fieldValidation(query: URLSearchParams): 'Strict' | 'Warn' | 'Ignore' | undefined {
  const value = query.get('fieldValidation');
  if (value === null || value === '') return undefined;
  if (value === 'Strict' || value === 'Warn' || value === 'Ignore') return value;
  throw Statuses.badRequest(`fieldValidation must be one of "Ignore", "Warn", or "Strict", got ${JSON.stringify(value)}`);
}

function includeObject(query: URLSearchParams): IncludeObject {
  const value = query.get('includeObject');
  return value === 'None' || value === 'Object' ? value : 'Metadata';
}

/** `Warning: 299 - "…"` headers of a write (unknown fields pruned from a custom resource). */
function warningHeaders(warnings: string[]): Record<string, string> | undefined {
  return warnings.length === 0 ? undefined : { Warning: warnings.map((w) => `299 - ${JSON.stringify(w)}`).join(', ') };
}

function tableFor(ctx: RouterContext, def: ResourceDefinition, query: URLSearchParams): ((objects: KubeObject[], metadata: Record<string, unknown>) => unknown) | undefined {
  if (!ctx.asTable || !def.printerColumns) return undefined;
  const include = includeObject(query);
  return (objects, metadata) => toTable(def, objects, metadata, include);
}

/**
 * An object as the requested version shows it: versions of one CRD share storage (conversion strategy None), so
 * only `apiVersion` changes.
 */
function asVersion<T>(def: ResourceDefinition, body: T): T {
  if (!isJsonObject(body) || body['kind'] !== def.kind || body['apiVersion'] === def.apiVersion) return body;
  return { ...body, apiVersion: def.apiVersion };
}

/** Dispatches one request. Throws KubeApiError for every API failure. */
export function route(ctx: RouterContext, info: RequestInfo, body: RawBody): RouteResult {
  const { target, query } = info;
  switch (target.type) {
    case 'discovery': {
      if (info.method !== 'GET') throw Statuses.methodNotAllowed();
      return { type: 'json', code: 200, body: discoveryDocument(target.path, ctx.serverAddress, ctx.registry) };
    }
    case 'namespace': {
      if (info.method !== 'GET') throw Statuses.methodNotAllowed();
      const created = formatTime(ctx.startedAt);
      if (target.name !== undefined) return { type: 'json', code: 200, body: namespaceObject(target.name, created) };
      const names = new Set(['default', 'kube-system', 'kube-public']);
      for (const def of ctx.registry.all().filter((r) => r.namespaced)) for (const o of ctx.store.list(def.storage)) names.add(o.metadata.namespace ?? 'default');
      const items = [...names].sort().map((n) => {
        const { kind: _k, apiVersion: _a, ...item } = namespaceObject(n, created);
        return item;
      });
      return { type: 'json', code: 200, body: { kind: 'NamespaceList', apiVersion: 'v1', metadata: { resourceVersion: String(ctx.store.resourceVersion) }, items } };
    }
    case 'healthz':
      return { type: 'text', code: 200, body: 'ok' };
    case 'selfsubjectreview':
      // The review's body carries nothing the answer depends on, so it is not decoded: kubectl sends it as
      // protobuf, which this JSON-only server could not read (docs/fake-kube.md).
      if (info.method !== 'POST') throw Statuses.methodNotAllowed();
      return { type: 'json', code: 201, body: selfSubjectReview(ctx.user) };
    case 'unknown-resource':
      throw Statuses.routeNotFound();
    case 'not-found-text':
      return { type: 'text', code: 404, body: '404 page not found\n' };
    case 'resource':
      break;
  }
  const { def, namespace, name, subresource } = target;
  if (subresource !== undefined && !(subresource === 'status' && def.hasStatus)) throw Statuses.routeNotFound();
  if (!info.verb) throw Statuses.methodNotAllowed();
  const dryRun = query.getAll('dryRun').includes('All');
  const warnings: string[] = [];
  const write = { dryRun, fieldValidation: fieldValidation(query), warnings };
  const table = tableFor(ctx, def, query);
  const ns = namespace as string;
  const selectors = {
    labelSelector: query.get('labelSelector') ?? undefined,
    fieldSelector: query.get('fieldSelector') ?? undefined,
  };
  switch (info.verb) {
    case 'list': {
      const list = ctx.api.list(def, namespace, { ...selectors, limit: intParam(query, 'limit'), continue: query.get('continue') ?? undefined });
      return { type: 'json', code: 200, body: table ? table(list.items, list.metadata) : list };
    }
    case 'watch': {
      const session = new WatchSession(
        ctx.store,
        def,
        namespace,
        {
          ...selectors,
          resourceVersion: query.get('resourceVersion') ?? undefined,
          timeoutSeconds: intParam(query, 'timeoutSeconds'),
          allowWatchBookmarks: boolParam(query, 'allowWatchBookmarks'),
        },
        ctx.bookmarkIntervalMs,
      );
      return { type: 'watch', session, encode: table ? (object) => table([object], { resourceVersion: object.metadata.resourceVersion }) : (object) => asVersion(def, object) };
    }
    case 'get': {
      const object = ctx.api.get(def, ns, name as string);
      return { type: 'json', code: 200, body: table && subresource === undefined ? table([object], { resourceVersion: object.metadata.resourceVersion }) : asVersion(def, object) };
    }
    case 'create': {
      const created = ctx.api.create(def, ns, objectBody(body, def.kind), write);
      return { type: 'json', code: 201, body: asVersion(def, created), headers: warningHeaders(warnings) };
    }
    case 'update': {
      const sub = subresource === 'status' ? 'status' : undefined;
      const updated = ctx.api.replace(def, ns, name as string, objectBody(body, def.kind), { ...write, subresource: sub });
      return { type: 'json', code: 200, body: asVersion(def, updated), headers: warningHeaders(warnings) };
    }
    case 'patch': {
      const { patchKind, patch } = patchBody(body, def.kind);
      const sub = subresource === 'status' ? 'status' : undefined;
      const patched = ctx.api.patch(def, ns, name as string, patchKind, patch, { ...write, subresource: sub });
      return { type: 'json', code: 200, body: asVersion(def, patched), headers: warningHeaders(warnings) };
    }
    case 'delete':
      return { type: 'json', code: 200, body: asVersion(def, ctx.api.delete(def, ns, name as string, deleteOptions(info, body))) };
    case 'deletecollection':
      return { type: 'json', code: 200, body: ctx.api.deleteCollection(def, ns, selectors, deleteOptions(info, body)) };
  }
}
