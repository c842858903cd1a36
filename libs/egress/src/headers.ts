import type { IncomingHttpHeaders, OutgoingHttpHeaders } from 'node:http';

/** Hop-by-hop headers (RFC 9110 §7.6.1) plus the proxy's own: never forwarded on any route. */
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'te', 'trailer', 'transfer-encoding', 'upgrade', 'host']);

/**
 * Headers that carry or assert an identity, stripped on Kubernetes routes before the route's credential is
 * injected (C-EGR-5): a stolen token, `--as`, front-proxy identity headers and cookies never reach the API server.
 */
const KUBE_STRIP = new Set(['authorization', 'x-api-key', 'cookie', 'via']);
const KUBE_STRIP_PREFIXES = ['impersonate-', 'x-remote-', 'x-forwarded-'];

/** On every route: the proxy's own headers (Proxy-Authorization would leak a proxy credential upstream). */
const ALWAYS_STRIP_PREFIXES = ['proxy-'];

/**
 * The headers to send upstream: hop-by-hop and those named by `Connection` dropped, `Proxy-*` dropped, the
 * identity headers dropped on Kubernetes routes, and `Host` set to the CONNECT target (C-EGR-4), whatever the
 * client sent.
 */
export function upstreamHeaders(incoming: IncomingHttpHeaders, host: string, kube: boolean): OutgoingHttpHeaders {
  const named = String(incoming.connection ?? '')
    .split(',')
    .map((token) => token.trim().toLowerCase())
    .filter(Boolean);
  const headers: OutgoingHttpHeaders = {};
  for (const [name, value] of Object.entries(incoming)) {
    if (value === undefined || HOP_BY_HOP.has(name) || named.includes(name)) continue;
    if (ALWAYS_STRIP_PREFIXES.some((prefix) => name.startsWith(prefix)) || (kube && isKubeStripped(name))) continue;
    headers[name] = value;
  }
  headers.host = host;
  return headers;
}

function isKubeStripped(name: string): boolean {
  return KUBE_STRIP.has(name) || KUBE_STRIP_PREFIXES.some((prefix) => name.startsWith(prefix));
}

/** Response headers to pass back: hop-by-hop dropped; a 3xx `Location` is passed unchanged, never followed. */
export function downstreamHeaders(incoming: IncomingHttpHeaders): OutgoingHttpHeaders {
  const named = String(incoming.connection ?? '').split(',').map((token) => token.trim().toLowerCase());
  const headers: OutgoingHttpHeaders = {};
  for (const [name, value] of Object.entries(incoming)) {
    if (value === undefined || HOP_BY_HOP.has(name) || named.includes(name)) continue;
    headers[name] = value;
  }
  return headers;
}
