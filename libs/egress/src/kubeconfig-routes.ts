import { stringify } from 'yaml';
import { parseAuthority } from './authority.js';
import { KubeconfigError, userCredential, type Kubeconfig } from './kubeconfig.js';
import type { KubeCredential, KubeRoute } from './routes.js';

/** The token every dummy kubeconfig carries: the gateway strips it and injects the route's own (C-EGR-5). */
export const PLACEHOLDER_TOKEN = 'egress-gateway-managed';

/** One context that became a route: its cluster's API server as `host:port`. */
interface RoutedContext {
  readonly name: string;
  readonly cluster: string;
  readonly user: string;
  readonly namespace: string | undefined;
  readonly route: KubeRoute;
}

/**
 * The Kubernetes routes of a kubeconfig (C-EGR-5): one per API server `host:port` that a context uses, with the
 * cluster's CA pinned and the context user's token or client certificate injected. Every context counts, not
 * only the current one, so `kubectl --context` keeps working. Refused, with every problem listed: plain `http://`
 * servers, servers without a CA (`insecure-skip-tls-verify` cannot be honoured: the upstream is verified), fields
 * the gateway cannot honour, users it cannot inject (`exec`, `auth-provider`, basic auth), and one server reached
 * with two different credentials or CAs (which one would the gateway inject?).
 */
export function kubeconfigRoutes(config: Kubeconfig, source: string): KubeRoute[] {
  return routedContexts(config, source).reduce<KubeRoute[]>((routes, { route }) => {
    if (!routes.some((r) => r.authority === route.authority)) routes.push(route);
    return routes;
  }, []);
}

/**
 * The kubeconfig a sandbox gets instead of the real one (C-EGR-5): the same contexts, clusters (real server URLs)
 * and current context, every cluster trusting the gateway's CA only, every user the placeholder token. Nothing in
 * it is secret. Contexts that did not become routes are left out: their requests would only be refused.
 * `proxyUrl` becomes every cluster's `proxy-url` (the local backend's relay): Go clients (kubectl) never send a
 * request for a loopback host through `HTTPS_PROXY` — a laptop's kind or minikube API server is on 127.0.0.1 — but
 * always through `proxy-url`.
 */
export function dummyKubeconfig(config: Kubeconfig, source: string, gatewayCaPem: string, options: { proxyUrl?: string } = {}): string {
  const contexts = routedContexts(config, source);
  const clusters = [...new Set(contexts.map((c) => c.cluster))];
  const users = [...new Set(contexts.map((c) => c.user))];
  const current = contexts.some((c) => c.name === config.currentContext) ? config.currentContext : contexts[0]?.name;
  const ca = Buffer.from(gatewayCaPem).toString('base64');
  return stringify({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: clusters.map((name) => ({
      name, cluster: { server: config.clusters.get(name)!.server, 'certificate-authority-data': ca, ...(options.proxyUrl === undefined ? {} : { 'proxy-url': options.proxyUrl }) },
    })),
    users: users.map((name) => ({ name, user: { token: PLACEHOLDER_TOKEN } })),
    contexts: contexts.map(({ name, cluster, user, namespace }) => ({ name, context: namespace === undefined ? { cluster, user } : { cluster, user, namespace } })),
    ...(current === undefined ? {} : { 'current-context': current }),
  });
}

function routedContexts(config: Kubeconfig, source: string): RoutedContext[] {
  const problems: string[] = [];
  const routed: RoutedContext[] = [];
  const byAuthority = new Map<string, RoutedContext>();
  for (const [name, context] of config.contexts) {
    const cluster = config.clusters.get(context.cluster);
    const user = config.users.get(context.user);
    if (!cluster) problems.push(`contexts[${name}] names cluster ${JSON.stringify(context.cluster)}, which is not listed`);
    if (!user) problems.push(`contexts[${name}] names user ${JSON.stringify(context.user)}, which is not listed`);
    if (!cluster || !user) continue;
    const authority = serverAuthority(cluster.server, context.cluster, problems);
    if (cluster.unsupported.length > 0) problems.push(`clusters[${context.cluster}] sets ${cluster.unsupported.join(', ')}, which the gateway cannot honour`);
    if (cluster.caPem === undefined) {
      problems.push(`clusters[${context.cluster}] has no certificate-authority-data${cluster.insecureSkipTlsVerify ? ' (insecure-skip-tls-verify cannot be honoured: the gateway verifies the API server)' : ''}`);
    }
    const credential = userCredential(user, context.user);
    if (typeof credential === 'string') problems.push(credential);
    if (authority === undefined || cluster.caPem === undefined || typeof credential === 'string' || cluster.unsupported.length > 0) continue;
    const entry: RoutedContext = { name, cluster: context.cluster, user: context.user, namespace: context.namespace, route: { kind: 'kubernetes', authority, ca: cluster.caPem, credential } };
    const earlier = byAuthority.get(authority);
    if (earlier && (earlier.route.ca !== cluster.caPem || !sameCredential(earlier.route.credential, credential))) {
      problems.push(`contexts[${earlier.name}] and contexts[${name}] reach ${authority} with different ${earlier.route.ca !== cluster.caPem ? 'CAs' : 'credentials'}; the gateway injects one per API server`);
      continue;
    }
    byAuthority.set(authority, entry);
    routed.push(entry);
  }
  if (problems.length > 0) throw new KubeconfigError(source, problems);
  if (routed.length === 0) throw new KubeconfigError(source, ['no context: nothing to route']);
  return routed;
}

/** `https://host[:port][/path]` → the canonical `host:port` (443 by default). */
function serverAuthority(server: string, cluster: string, problems: string[]): string | undefined {
  let url: URL;
  try {
    url = new URL(server);
  } catch {
    problems.push(`clusters[${cluster}].server ${JSON.stringify(server)} is not a URL`);
    return undefined;
  }
  if (url.protocol !== 'https:') {
    problems.push(`clusters[${cluster}].server ${server} is not https: the gateway never sends a credential in clear`);
    return undefined;
  }
  try {
    // WHATWG keeps IPv6 brackets in hostname: `[fd00::1]:6443`, as parseAuthority wants it.
    return parseAuthority(`${url.hostname}:${url.port || '443'}`).key;
  } catch (error) {
    problems.push(`clusters[${cluster}].server ${server}: ${(error as Error).message}`);
    return undefined;
  }
}

function sameCredential(a: KubeCredential, b: KubeCredential): boolean {
  if ('token' in a && 'token' in b) return a.token === b.token;
  if ('cert' in a && 'cert' in b) return a.cert === b.cert && a.key === b.key;
  return false;
}
