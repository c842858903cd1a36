import { isAbsolute, resolve } from 'node:path';
import { parse, stringify } from 'yaml';
import { parseAuthority } from './authority.js';
import type { KubeCredential, KubeRoute } from './routes.js';

/** A kubeconfig the gateway cannot use at all: the caller names its flag or field in front of the message. */
export class KubeconfigProblem extends Error {}

/** What a real kubeconfig yields for the gateway (C-EGR-5) and for the sandbox's dummy kubeconfig. */
export interface EgressKubeconfig {
  /** One Kubernetes route per API server (`host:port`) with a usable credential. */
  readonly routes: readonly KubeRoute[];
  /** The clusters the sandbox may name: those behind a route, with their server URLs as written. */
  readonly clusters: ReadonlyArray<{ readonly name: string; readonly server: string }>;
  readonly contexts: ReadonlyArray<{ readonly name: string; readonly cluster: string; readonly namespace?: string }>;
  readonly currentContext?: string;
  /** Clusters left out, each with the reason (the caller warns about them). */
  readonly skipped: ReadonlyArray<{ readonly cluster: string; readonly reason: string }>;
}

/** Reads a file a kubeconfig refers to (`certificate-authority`, `client-key`, `tokenFile`). */
export type KubeconfigFileReader = (path: string) => Promise<string>;

type Entry = Record<string, unknown>;
interface Named { readonly name: string; readonly body: Entry }

/** The user every context of the dummy kubeconfig uses; its token is a placeholder the gateway replaces. */
export const PLACEHOLDER_USER = 'cli-mcp-egress';
export const PLACEHOLDER_TOKEN = 'cli-mcp-egress-placeholder-token';

/**
 * Turns a kubeconfig into Kubernetes routes: each cluster its contexts name becomes a route to its API server,
 * pinned to the cluster's CA, with the credential of the user the current context (else the first context in file
 * order) pairs it with. Clusters the gateway cannot serve faithfully are skipped with a reason: exec and
 * auth-provider users, no CA to pin, `insecure-skip-tls-verify`, `proxy-url`, `tls-server-name`, plain http and
 * server URLs with a path. None usable at all is a problem.
 */
export async function readKubeconfigRoutes(text: string, baseDir: string, readFile: KubeconfigFileReader): Promise<EgressKubeconfig> {
  let doc: unknown;
  try {
    doc = parse(text);
  } catch (error) {
    throw new KubeconfigProblem(`is not valid YAML: ${(error as Error).message.split('\n')[0]}`);
  }
  if (!isEntry(doc)) throw new KubeconfigProblem('is not a kubeconfig (expected a mapping with clusters, users and contexts)');
  const clusters = namedList(doc, 'clusters', 'cluster');
  const users = namedList(doc, 'users', 'user');
  const contexts = namedList(doc, 'contexts', 'context');
  const current = typeof doc['current-context'] === 'string' ? doc['current-context'] : undefined;
  const file = (path: string): Promise<string> => readFile(isAbsolute(path) ? path : resolve(baseDir, path));

  // The current context decides its cluster's identity; the others follow in file order.
  const ordered = [...contexts.filter((c) => c.name === current), ...contexts.filter((c) => c.name !== current)];
  const routes = new Map<string, KubeRoute>();
  const kept = new Map<string, { name: string; server: string }>();
  const skipped = new Map<string, string>();
  for (const context of ordered) {
    const clusterName = str(context.body.cluster);
    if (clusterName === undefined || kept.has(clusterName)) continue;
    const cluster = clusters.find((c) => c.name === clusterName);
    const user = users.find((u) => u.name === str(context.body.user));
    const outcome = cluster ? await routeOf(cluster, user, file) : `no cluster named ${JSON.stringify(clusterName)}`;
    if (typeof outcome === 'string') {
      if (!skipped.has(clusterName)) skipped.set(clusterName, outcome);
      continue;
    }
    skipped.delete(clusterName);
    kept.set(clusterName, { name: clusterName, server: outcome.server });
    // Two cluster entries for one API server: one credential per host:port, the first (by the order above) wins.
    if (!routes.has(outcome.route.authority)) routes.set(outcome.route.authority, outcome.route);
  }
  if (routes.size === 0) {
    const why = [...skipped].map(([name, reason]) => `${name}: ${reason}`).join('; ');
    throw new KubeconfigProblem(`has no cluster the egress gateway can use${why ? ` (${why})` : ' (no context names a cluster)'}`);
  }
  const keptContexts = contexts
    .filter((c) => kept.has(str(c.body.cluster) ?? ''))
    .map((c) => ({ name: c.name, cluster: str(c.body.cluster)!, ...(str(c.body.namespace) ? { namespace: str(c.body.namespace) } : {}) }));
  return {
    routes: [...routes.values()],
    clusters: [...kept.values()],
    contexts: keptContexts,
    currentContext: keptContexts.some((c) => c.name === current) ? current : keptContexts[0]?.name,
    skipped: [...skipped].map(([cluster, reason]) => ({ cluster, reason })),
  };
}

/**
 * The kubeconfig a sandbox gets (C-EGR-5): the real server URLs, so clients CONNECT to the real host:port, the
 * gateway's CA as every cluster's CA, and one user whose token is a placeholder. Never a real credential.
 * `proxyUrl` becomes each cluster's `proxy-url`: Go clients (kubectl) never send a request for a loopback host
 * through `HTTPS_PROXY` — a laptop's kind or minikube API server is on 127.0.0.1 — but always through `proxy-url`.
 */
export function dummyKubeconfig(config: EgressKubeconfig, gatewayCaPem: string, options: { proxyUrl?: string } = {}): string {
  const ca = Buffer.from(gatewayCaPem).toString('base64');
  const proxy = options.proxyUrl === undefined ? {} : { 'proxy-url': options.proxyUrl };
  return stringify({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: config.clusters.map(({ name, server }) => ({ name, cluster: { server, 'certificate-authority-data': ca, ...proxy } })),
    users: [{ name: PLACEHOLDER_USER, user: { token: PLACEHOLDER_TOKEN } }],
    contexts: config.contexts.map(({ name, cluster, namespace }) => ({ name, context: { cluster, user: PLACEHOLDER_USER, ...(namespace ? { namespace } : {}) } })),
    'current-context': config.currentContext ?? '',
  });
}

async function routeOf(cluster: Named, user: Named | undefined, file: (path: string) => Promise<string>): Promise<{ route: KubeRoute; server: string } | string> {
  const body = cluster.body;
  const server = str(body.server);
  if (server === undefined) return 'no server URL';
  let url: URL;
  try {
    url = new URL(server);
  } catch {
    return `server ${JSON.stringify(server)} is not a URL`;
  }
  if (url.protocol !== 'https:') return `server ${server} is not https (the gateway reaches API servers over TLS only)`;
  if (url.pathname !== '/' && url.pathname !== '') return `server ${server} has a path prefix, which the gateway's API path check does not support`;
  if (body['insecure-skip-tls-verify'] === true) return 'insecure-skip-tls-verify is set (the gateway must verify the API server against a CA)';
  for (const field of ['proxy-url', 'tls-server-name']) if (body[field] !== undefined) return `${field} is not supported`;
  const authority = parseAuthority(url.port === '' ? `${url.hostname}:443` : url.host).key;
  const ca = await pemField(body, 'certificate-authority', file);
  if (ca === undefined) return 'no certificate-authority(-data) to verify the API server against';
  if (!user) return 'its context names no user';
  const credential = await credentialOf(user, file);
  if (typeof credential === 'string') return credential;
  return { route: { kind: 'kubernetes', authority, ca, credential }, server };
}

async function credentialOf(user: Named, file: (path: string) => Promise<string>): Promise<KubeCredential | string> {
  const body = user.body;
  if (body.exec !== undefined) return `user ${user.name} uses an exec credential plugin, which is not supported (give a token or client certificate)`;
  if (body['auth-provider'] !== undefined) return `user ${user.name} uses an auth-provider, which is not supported (give a token or client certificate)`;
  const token = str(body.token) ?? (str(body.tokenFile) ? (await file(str(body.tokenFile)!)).trim() : undefined);
  if (token) return { token };
  const cert = await pemField(body, 'client-certificate', file);
  const key = await pemField(body, 'client-key', file);
  if (cert && key) return { cert, key };
  return `user ${user.name} has no token or client certificate and key`;
}

/** `<name>-data` (base64) or `<name>` (a file path), as PEM text. */
async function pemField(body: Entry, name: string, file: (path: string) => Promise<string>): Promise<string | undefined> {
  const data = str(body[`${name}-data`]);
  const text = data !== undefined ? Buffer.from(data, 'base64').toString('utf8') : str(body[name]) ? await file(str(body[name])!) : undefined;
  if (text === undefined) return undefined;
  if (!text.includes('-----BEGIN ')) throw new KubeconfigProblem(`${name}${data !== undefined ? '-data' : ''} is not PEM`);
  return text;
}

function namedList(doc: Entry, list: string, field: string): Named[] {
  const raw = doc[list] ?? [];
  if (!Array.isArray(raw)) throw new KubeconfigProblem(`${list} is not a list`);
  return raw.map((item: unknown, index) => {
    if (!isEntry(item) || typeof item.name !== 'string' || !isEntry(item[field])) {
      throw new KubeconfigProblem(`${list}[${index}] needs a name and a ${field} mapping`);
    }
    return { name: item.name, body: item[field] };
  });
}

function isEntry(value: unknown): value is Entry {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function str(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}
