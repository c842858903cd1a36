import { parseAuthority } from './authority.js';
import { EgressError, toEgressError } from './errors.js';
import type { Resolver } from './resolver.js';
import type { Routes } from './routes.js';
import { resolveDestination, type Destination } from './upstream.js';

const ABSOLUTE_HTTP = /^http:\/\/([^/?#]*)(.*)$/i;

/**
 * An absolute-form `http://` request to the gateway itself (C-EGR-4): the authority is taken from the raw URL (the
 * WHATWG parser would rewrite `127.1` and friends before the strict parser sees them), its route must allow plain
 * HTTP, and Kubernetes routes never do. `https://` must come through CONNECT.
 */
export async function plainTarget(url: string, routes: Routes, resolver: Resolver): Promise<{ path: string; destination: Destination } | EgressError> {
  try {
    const match = ABSOLUTE_HTTP.exec(url);
    if (!match) {
      throw new EgressError('bad_request', /^https:/i.test(url)
        ? 'https:// URLs go through CONNECT (set HTTPS_PROXY)'
        : 'the egress gateway takes CONNECT or an absolute http:// URL');
    }
    const route = routes.match(parseAuthority(match[1], 80));
    if (route.kind !== 'allow' || !route.plainHttp) {
      throw new EgressError('plain_http_refused', `plain HTTP to ${route.target.key} is not allowed; use https`, { host: route.target.key });
    }
    const destination = await resolveDestination(route, resolver, false);
    const rest = match[2];
    return { path: rest.startsWith('/') ? rest : `/${rest}`, destination };
  } catch (error) {
    return toEgressError(error);
  }
}
