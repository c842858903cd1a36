import { parseAuthority, type Authority } from './authority.js';
import { EgressError } from './errors.js';

/** What the gateway puts into requests on a Kubernetes route: the kubeconfig user's token or client certificate. */
export type KubeCredential = { readonly token: string } | { readonly cert: string; readonly key: string };

/** An allow-listed `host:port` (`--egress-allow`, `spec.proxy.targets[].domains`). */
export interface AllowRoute {
  readonly kind: 'allow';
  readonly authority: string;
  /** Plain `http://` (absolute-form, or plaintext inside a CONNECT) is refused unless set (C-EGR-4). */
  readonly plainHttp?: boolean;
  /** PEM roots for the upstream; the system roots when absent. */
  readonly ca?: string;
}

/** A cluster of a kubeconfig (`--egress-kubeconfig`): private addresses allowed, TLS only, credential injected. */
export interface KubeRoute {
  readonly kind: 'kubernetes';
  readonly authority: string;
  /** The kubeconfig's `certificate-authority-data` as PEM: the only roots trusted upstream (C-EGR-5). */
  readonly ca: string;
  readonly credential: KubeCredential;
}

export type RouteSpec = AllowRoute | KubeRoute;
export type Route = RouteSpec & { readonly target: Authority };
/** The bounded `route` label of metrics and audit: the kind, never a host name. */
export type RouteLabel = 'allow' | 'kubernetes' | 'none';

/** What a 403 names as the way to allow `key` (fields of its JSON body). */
export type AllowHint = (key: string) => Readonly<Record<string, string>>;

/**
 * One allow-list entry (`--egress-allow`, the gateway's `--routes-file`) as its canonical key, or an error saying
 * why not: the same strict authority rules as requests (C-EGR-2), and no wildcards.
 */
export function parseAllowEntry(entry: string): string {
  if (entry.includes('*')) throw new EgressError('bad_authority', 'wildcards are not supported; list each HOST:PORT');
  return parseAuthority(entry).key;
}

/**
 * The exact `host:port` table (C-EGR-2): no wildcards, no suffixes. Entries are canonicalised with the same
 * parser as requests, so `API.example.com.:443` in a flag and `api.example.com:443` in a CONNECT are one key.
 * Holders of the object (the local backend, apps/egress-gateway) build it from flags or a ConfigMap.
 */
export class Routes {
  private readonly byKey = new Map<string, Route>();

  /**
   * `allowHint` says, in a 403's JSON body, what would allow a refused `host:port` where this gateway runs (C-EGR-2):
   * the local server's `--egress-allow` by default; the Kubernetes gateway names its routes file and the CR field.
   */
  constructor(
    specs: readonly RouteSpec[],
    private readonly allowHint: AllowHint = (key) => ({ flag: `--egress-allow ${key}` }),
  ) {
    for (const spec of specs) {
      if (spec.authority.includes('*')) throw new EgressError('bad_authority', `route ${spec.authority}: wildcards are not supported; list each HOST:PORT`);
      const target = parseAuthority(spec.authority);
      if (spec.kind === 'kubernetes') checkKubeRoute(spec, target.key);
      const existing = this.byKey.get(target.key);
      if (existing && existing.kind !== spec.kind) throw new EgressError('bad_authority', `route ${target.key} is listed both as ${existing.kind} and ${spec.kind}`);
      if (existing?.kind === 'kubernetes') throw new EgressError('bad_authority', `route ${target.key} comes from two kubeconfig clusters`);
      this.byKey.set(target.key, { ...spec, target });
    }
  }

  get size(): number {
    return this.byKey.size;
  }

  all(): Route[] {
    return [...this.byKey.values()];
  }

  /** The route of a canonical authority, or a 403 naming what would allow it (`allowHint`). */
  match(target: Authority): Route {
    const route = this.byKey.get(target.key);
    if (route) return route;
    throw new EgressError('not_allowed', `${target.key} is not an allowed egress route`, { host: target.key, ...this.allowHint(target.key) });
  }
}

/**
 * A Kubernetes route must pin its CA and carry a usable credential (C-EGR-5): an empty `ca` would make node:tls
 * fall back to the system roots, and an empty token would be injected as `Bearer `.
 */
function checkKubeRoute(spec: KubeRoute, key: string): void {
  if (!spec.ca.includes('-----BEGIN CERTIFICATE-----')) {
    throw new EgressError('bad_authority', `Kubernetes route ${key}: the kubeconfig cluster has no certificate-authority-data`);
  }
  const { credential } = spec;
  const usable = 'token' in credential ? credential.token.trim() !== '' : credential.cert !== '' && credential.key !== '';
  if (!usable) throw new EgressError('credential_missing', `Kubernetes route ${key}: the kubeconfig user has no token or client certificate`);
}
