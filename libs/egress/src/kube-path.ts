import { EgressError } from './errors.js';

/** Subresources that hand out a shell, a stream or a tunnel into the cluster (C-EGR-5). */
const DENIED = new Set(['exec', 'attach', 'portforward', 'proxy']);
/** Namespace subresources the API server does not treat as a resource under the namespace. */
const NAMESPACE_SUBRESOURCES = new Set(['status', 'finalize']);

/**
 * Refuses a Kubernetes API path that reaches exec, attach, portforward or proxy (C-EGR-5). The API server
 * percent-decodes the path once (`%2F` becomes a separator) and splits it on `/` the way its RequestInfo parser
 * does: `/api/<v>/…` or `/apis/<group>/<v>/…`, the legacy `watch`/`proxy` verbs, `namespaces/<ns>/`, then
 * `<resource>/<name>/<subresource>`. Anything ambiguous for an intermediary — a dot segment, an empty segment
 * (`//`), `;`, `\`, `%` after decoding, control characters — is refused as 400 rather than guessed: kubectl and
 * client libraries never send them. Returns the decoded path.
 */
export function checkKubePath(rawPath: string): string {
  let path: string;
  try {
    path = decodeURIComponent(rawPath);
  } catch {
    throw badPath('invalid percent-encoding');
  }
  // eslint-disable-next-line no-control-regex
  if (!path.startsWith('/') || /[;\\%\u0000-\u0020\u007f]/.test(path)) throw badPath('";", "\\", "%", spaces and control characters are not allowed');
  if (path === '/') return path;
  const parts = path.slice(1).replace(/\/$/, '').split('/');
  if (parts.some((part) => part === '' || part === '.' || part === '..')) throw badPath('empty and dot segments are not allowed');
  const rest = parts[0] === 'api' ? parts.slice(2) : parts[0] === 'apis' ? parts.slice(3) : null;
  if (rest === null) return path;
  let items = rest;
  if (items[0] === 'proxy') throw denied(path, 'proxy');
  if (items[0] === 'watch') items = items.slice(1);
  if (items[0] === 'namespaces' && items.length > 2 && !NAMESPACE_SUBRESOURCES.has(items[2])) items = items.slice(2);
  const subresource = items[2];
  if (subresource !== undefined && DENIED.has(subresource)) throw denied(path, subresource);
  return path;
}

function badPath(why: string): EgressError {
  return new EgressError('bad_path', `Kubernetes API path refused: ${why}`);
}

function denied(path: string, what: string): EgressError {
  return new EgressError('path_denied', `the ${what} subresource is not allowed through the egress gateway`, { path });
}
