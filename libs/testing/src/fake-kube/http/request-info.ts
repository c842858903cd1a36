import type { ResourceRegistry } from '../api/resource-registry.js';
import type { ResourceDefinition } from '../api/resources.js';
import { boolParam } from './query-params.js';

/** Kubernetes verbs, as the API server's RequestInfo resolver names them. */
export type KubeVerb = 'get' | 'list' | 'watch' | 'create' | 'update' | 'patch' | 'delete' | 'deletecollection';

/** What a URL addresses. */
export type RouteTarget =
  | { type: 'resource'; def: ResourceDefinition; namespace?: string; name?: string; subresource?: string }
  | { type: 'discovery'; path: string }
  /** `/api/v1/namespaces[/{name}]`: namespaces exist implicitly and are read-only. */
  | { type: 'namespace'; name?: string }
  | { type: 'healthz' }
  /** `POST /apis/authentication.k8s.io/v1/selfsubjectreviews` (`kubectl auth whoami`). */
  | { type: 'selfsubjectreview' }
  | { type: 'unknown-resource' }
  | { type: 'not-found-text' };

/** Parsed request line, used by the router, the request log and fault rules. */
export interface RequestInfo {
  method: string;
  path: string;
  query: URLSearchParams;
  target: RouteTarget;
  /** Resolved verb for resource requests (undefined when the method is not allowed there). */
  verb?: KubeVerb;
}

const STATIC_DISCOVERY = new Set(['/version', '/api', '/api/v1', '/apis', '/apis/authentication.k8s.io', '/apis/authentication.k8s.io/v1']);
const SELF_SUBJECT_REVIEWS = '/apis/authentication.k8s.io/v1/selfsubjectreviews';

function isDiscovery(segments: string[], registry: ResourceRegistry): boolean {
  const path = `/${segments.join('/')}`;
  if (STATIC_DISCOVERY.has(path)) return true;
  return segments[0] === 'apis' && (segments.length === 2 || segments.length === 3) && registry.hasGroup(segments[1] as string, segments[2]);
}

function resolveTarget(segments: string[], registry: ResourceRegistry): RouteTarget {
  let group: string;
  let version: string;
  let rest: string[];
  if (segments[0] === 'api' && segments[1] === 'v1') {
    group = '';
    version = 'v1';
    rest = segments.slice(2);
  } else if (segments[0] === 'apis' && segments.length >= 3) {
    group = segments[1] as string;
    version = segments[2] as string;
    rest = segments.slice(3);
  } else return { type: 'not-found-text' };
  if (group === '' && rest[0] === 'namespaces' && rest.length <= 2) return { type: 'namespace', name: rest[1] };
  let namespace: string | undefined;
  if (rest[0] === 'namespaces' && rest.length >= 3) {
    namespace = rest[1];
    rest = rest.slice(2);
  }
  const def = registry.find(group, version, rest[0] ?? '');
  if (!def || rest.length > 3) return { type: 'unknown-resource' };
  // Cluster-scoped resources have no namespaced paths; namespaced items need their namespace.
  if (!def.namespaced && namespace !== undefined) return { type: 'unknown-resource' };
  if (def.namespaced && namespace === undefined && rest.length > 1) return { type: 'unknown-resource' };
  return { type: 'resource', def, namespace, name: rest[1], subresource: rest[2] };
}

function resolveVerb(method: string, target: RouteTarget, query: URLSearchParams): KubeVerb | undefined {
  if (target.type === 'selfsubjectreview') return method === 'POST' ? 'create' : undefined;
  if (target.type !== 'resource') return undefined;
  const watch = boolParam(query, 'watch');
  const scoped = !target.def.namespaced || target.namespace !== undefined;
  if (target.name === undefined) {
    if (method === 'GET') return watch ? 'watch' : 'list';
    if (!scoped) return undefined;
    if (method === 'POST') return 'create';
    if (method === 'DELETE') return 'deletecollection';
    return undefined;
  }
  if (!scoped) return undefined;
  if (target.subresource !== undefined) {
    if (method === 'GET') return 'get';
    if (method === 'PUT') return 'update';
    if (method === 'PATCH') return 'patch';
    return undefined;
  }
  switch (method) {
    case 'GET':
      return 'get';
    case 'PUT':
      return 'update';
    case 'PATCH':
      return 'patch';
    case 'DELETE':
      return 'delete';
    default:
      return undefined;
  }
}

/** Parses method + URL into a RequestInfo. */
export function parseRequest(method: string, rawUrl: string, registry: ResourceRegistry): RequestInfo {
  const url = new URL(rawUrl, 'http://fake.invalid');
  const path = url.pathname;
  const segments = path.split('/').filter((s) => s.length > 0).map((s) => decodeURIComponent(s));
  let target: RouteTarget;
  const trimmed = `/${segments.join('/')}`;
  if (isDiscovery(segments, registry)) target = { type: 'discovery', path: trimmed };
  else if (trimmed === '/healthz' || trimmed === '/livez' || trimmed === '/readyz') target = { type: 'healthz' };
  else if (trimmed === SELF_SUBJECT_REVIEWS) target = { type: 'selfsubjectreview' };
  else target = resolveTarget(segments, registry);
  return { method, path, query: url.searchParams, target, verb: resolveVerb(method, target, url.searchParams) };
}
