import { EgressError } from './errors.js';
import type { Destination } from './upstream.js';

/** The path of a request inside a tunnel; an absolute-form URL must name the CONNECT target itself (C-EGR-4). */
export function tunnelPath(url: string, tunnel: { readonly destination: Destination }): string | EgressError {
  if (url.startsWith('/')) return url;
  const { target } = tunnel.destination.route;
  const scheme = tunnel.destination.tls ? 'https://' : 'http://';
  const match = /^([a-z][a-z0-9+.-]*:\/\/)([^/?#]*)(.*)$/i.exec(url);
  if (!match) return new EgressError('bad_request', 'the request target must be a path or an absolute URL');
  const named = match[2].toLowerCase().replace(/\.(:|$)/, '$1');
  const defaultPort = tunnel.destination.tls ? 443 : 80;
  const same = match[1].toLowerCase() === scheme && (named === target.key || (target.port === defaultPort && named === target.key.replace(/:\d+$/, '')));
  if (!same) return new EgressError('authority_mismatch', `the tunnel is to ${target.key}; a request naming ${match[2].slice(0, 300)} is refused`, { host: target.key });
  return match[3].startsWith('/') ? match[3] : `/${match[3]}`;
}
