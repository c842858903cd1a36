import { isIP } from 'node:net';
import { parseBearer, tokensEqual } from '@cli-mcp/auth';
import { hostnameOf, isLoopbackHostname } from '@cli-mcp/common';
import type { AllowedHosts } from '../../config/server-config.js';

export interface AccessPolicy {
  readonly allowedHosts: AllowedHosts;
  /** Bearer token required on every route not marked open; undefined = no auth boundary. */
  readonly authToken: string | undefined;
  /** Shutdown started: new work on protected routes is refused. */
  readonly draining: () => boolean;
}

/** What the decision needs: whether the route the router MATCHED is open, and the request's headers. */
export interface AccessRequest {
  /** From the matched handler's metadata (`@OpenRoute()`), never from the request target (C-HTTP-5). */
  readonly open: boolean;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
}

/** A refusal, answered instead of the handler. */
export interface AccessRefusal {
  readonly status: 401 | 403 | 503;
  readonly message: string;
  readonly headers?: Readonly<Record<string, string>>;
}

/**
 * Decides whether a matched route may run (C-HTTP-5, C-MCP-8), deny by default:
 * 1. DNS-rebinding protection on every route: a `Host` that is a DNS name must be a loopback name or listed in
 *    `--allowed-hosts`; an IP-literal `Host` passes (rebinding needs a name the attacker's DNS answers — a kubelet
 *    probe or a Prometheus scrape sends `<pod IP>:<port>`); a present `Origin` must be loopback or listed, IP
 *    literal or not (a foreign page is foreign whatever its address).
 * 2. With an auth token, every route not marked open needs `Authorization: Bearer <token>` (constant time).
 * 3. While draining, routes not marked open answer 503.
 * Pure: the guard only supplies `open` from the router's match and applies the answer.
 */
export function decideAccess(request: AccessRequest, policy: AccessPolicy): AccessRefusal | undefined {
  const host = single(request.headers.host);
  const hostname = host === undefined ? undefined : hostnameOf(host);
  if (hostname === undefined || !(isIP(hostname) !== 0 || nameAllowed(hostname, policy.allowedHosts))) {
    return { status: 403, message: `Invalid Host: ${host ?? '(missing)'}` };
  }
  const origin = single(request.headers.origin);
  if (origin !== undefined) {
    const originHost = hostnameOf(origin, true);
    if (originHost === undefined || !nameAllowed(originHost, policy.allowedHosts)) {
      return { status: 403, message: `Invalid Origin: ${origin}` };
    }
  }
  if (request.open) return undefined;
  if (policy.authToken !== undefined) {
    const presented = parseBearer(single(request.headers.authorization));
    if (presented === undefined || !tokensEqual(presented, policy.authToken)) {
      return { status: 401, message: 'Unauthorized: missing or invalid bearer token', headers: { 'www-authenticate': 'Bearer' } };
    }
  }
  if (policy.draining()) {
    return { status: 503, message: 'Service Unavailable: server is shutting down', headers: { connection: 'close', 'retry-after': '1' } };
  }
  return undefined;
}

/** The SDK's error body shape for transport-level refusals (stack-notes B.1). */
export function jsonRpcErrorBody(message: string, code = -32000): string {
  return JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null });
}

function nameAllowed(hostname: string, allowed: AllowedHosts): boolean {
  return allowed.any || isLoopbackHostname(hostname) || allowed.names.includes(hostname.toLowerCase());
}

function single(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}
