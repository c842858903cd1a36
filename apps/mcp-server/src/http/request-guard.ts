import { parseBearer, tokensEqual } from '@cli-mcp/auth';
import { hostnameOf, isLoopbackHostname } from '@cli-mcp/common';
import type { AllowedHosts } from '../config/server-config.js';

export interface GuardPolicy {
  readonly allowedHosts: AllowedHosts;
  /** Bearer token required on protected routes; undefined = no auth boundary. */
  readonly authToken: string | undefined;
  /** Shutdown started: new MCP work is refused. */
  readonly draining: () => boolean;
}

export interface GuardRequest {
  readonly path: string;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
}

/** A refusal, answered before any route runs. */
export interface GuardRejection {
  readonly status: number;
  readonly message: string;
  readonly headers?: Readonly<Record<string, string>>;
}

/** Probes and metrics: reached by kubelets and scrapers with pod-IP Host headers, and hold no session data. */
const OPEN_PATHS = new Set(['/live', '/health', '/metrics']);

/**
 * Decides whether a request may reach a route (C-MCP-8): DNS-rebinding protection on `Host` and `Origin`
 * (loopback names, or `--allowed-hosts`), then the bearer token on `/mcp` and `/sessions` (constant-time), then
 * the drain state. Pure: the Fastify hook only applies the answer.
 */
export function guardRequest(request: GuardRequest, policy: GuardPolicy): GuardRejection | undefined {
  if (OPEN_PATHS.has(request.path)) return undefined;
  const host = single(request.headers.host);
  const hostname = host === undefined ? undefined : hostnameOf(host);
  if (hostname === undefined || !hostAllowed(hostname, policy.allowedHosts)) {
    return { status: 403, message: `Invalid Host: ${host ?? '(missing)'}` };
  }
  const origin = single(request.headers.origin);
  if (origin !== undefined) {
    const originHost = hostnameOf(origin, true);
    if (originHost === undefined || !hostAllowed(originHost, policy.allowedHosts)) {
      return { status: 403, message: `Invalid Origin: ${origin}` };
    }
  }
  const isProtected = request.path === '/mcp' || request.path === '/sessions' || request.path.startsWith('/sessions/');
  if (isProtected && policy.authToken !== undefined) {
    const presented = parseBearer(single(request.headers.authorization));
    if (presented === undefined || !tokensEqual(presented, policy.authToken)) {
      return { status: 401, message: 'Unauthorized: missing or invalid bearer token', headers: { 'www-authenticate': 'Bearer' } };
    }
  }
  if (isProtected && policy.draining()) {
    return { status: 503, message: 'Service Unavailable: server is shutting down', headers: { connection: 'close', 'retry-after': '1' } };
  }
  return undefined;
}

/** The SDK's error body shape for transport-level refusals (stack-notes B.1). */
export function jsonRpcErrorBody(message: string, code = -32000): string {
  return JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null });
}

function hostAllowed(hostname: string, allowed: AllowedHosts): boolean {
  return allowed.any || isLoopbackHostname(hostname) || allowed.names.includes(hostname);
}

function single(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}
