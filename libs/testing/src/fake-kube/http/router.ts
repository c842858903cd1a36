import type { DeleteOptions, KubeApi, PatchKind } from '../api/kube-api.js';
import type { ObjectStore } from '../api/object-store.js';
import { Statuses } from '../api/status.js';
import { isJsonObject } from '../api/types.js';
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
  | { type: 'json'; code: number; body: unknown }
  | { type: 'text'; code: number; body: string }
  | { type: 'watch'; session: WatchSession };

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
    }
  }
  const grace = intParam(info.query, 'gracePeriodSeconds');
  if (grace !== undefined) options.gracePeriodSeconds = grace;
  if (info.query.getAll('dryRun').includes('All')) options.dryRun = true;
  return options;
}

/** The `authentication.k8s.io/v1` SelfSubjectReview a real server answers: the caller's UserInfo. */
function selfSubjectReview(user: UserInfo): object {
  return { kind: 'SelfSubjectReview', apiVersion: 'authentication.k8s.io/v1', metadata: { creationTimestamp: null }, status: { userInfo: user } };
}

/** Dispatches one request. Throws KubeApiError for every API failure. */
export function route(ctx: RouterContext, info: RequestInfo, body: RawBody): RouteResult {
  const { target, query } = info;
  switch (target.type) {
    case 'discovery': {
      if (info.method !== 'GET') throw Statuses.methodNotAllowed();
      return { type: 'json', code: 200, body: discoveryDocument(target.path, ctx.serverAddress) };
    }
    case 'namespace': {
      if (info.method !== 'GET') throw Statuses.methodNotAllowed();
      const created = formatTime(ctx.startedAt);
      if (target.name !== undefined) return { type: 'json', code: 200, body: namespaceObject(target.name, created) };
      const names = new Set(['default', 'kube-system', 'kube-public']);
      for (const plural of ['pods', 'secrets', 'leases']) for (const o of ctx.store.list(plural)) names.add(o.metadata.namespace ?? 'default');
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
  const ns = namespace as string;
  const selectors = {
    labelSelector: query.get('labelSelector') ?? undefined,
    fieldSelector: query.get('fieldSelector') ?? undefined,
  };
  switch (info.verb) {
    case 'list':
      return {
        type: 'json',
        code: 200,
        body: ctx.api.list(def, namespace, { ...selectors, limit: intParam(query, 'limit'), continue: query.get('continue') ?? undefined }),
      };
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
      return { type: 'watch', session };
    }
    case 'get':
      return { type: 'json', code: 200, body: ctx.api.get(def, ns, name as string) };
    case 'create':
      return { type: 'json', code: 201, body: ctx.api.create(def, ns, objectBody(body, def.kind), { dryRun }) };
    case 'update': {
      const sub = subresource === 'status' ? 'status' : undefined;
      return { type: 'json', code: 200, body: ctx.api.replace(def, ns, name as string, objectBody(body, def.kind), { dryRun, subresource: sub }) };
    }
    case 'patch': {
      const { patchKind, patch } = patchBody(body, def.kind);
      const sub = subresource === 'status' ? 'status' : undefined;
      return { type: 'json', code: 200, body: ctx.api.patch(def, ns, name as string, patchKind, patch, { dryRun, subresource: sub }) };
    }
    case 'delete':
      return { type: 'json', code: 200, body: ctx.api.delete(def, ns, name as string, deleteOptions(info, body)) };
    case 'deletecollection':
      return { type: 'json', code: 200, body: ctx.api.deleteCollection(def, ns, selectors, deleteOptions(info, body)) };
  }
}
