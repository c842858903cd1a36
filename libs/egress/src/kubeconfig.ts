import { dirname, isAbsolute, join } from 'node:path';
import { parse } from 'yaml';
import type { KubeCredential } from './routes.js';

/**
 * A kubeconfig as the gateway reads it (issue 20: the investigation kubeconfig on Kubernetes, `--egress-kubeconfig`
 * on a laptop, and the gateway's own API access): clusters, users and contexts by name, file references already
 * read. Parsing never contacts anything; `readFile` resolves `certificate-authority`, `client-certificate`,
 * `client-key` and `tokenFile` paths (relative to the kubeconfig's directory, as kubectl does).
 */
export interface Kubeconfig {
  readonly clusters: ReadonlyMap<string, KubeconfigCluster>;
  readonly users: ReadonlyMap<string, KubeconfigUser>;
  readonly contexts: ReadonlyMap<string, KubeconfigContext>;
  readonly currentContext: string | undefined;
}

export interface KubeconfigCluster {
  readonly server: string;
  /** PEM of `certificate-authority-data` or of the `certificate-authority` file. */
  readonly caPem: string | undefined;
  readonly insecureSkipTlsVerify: boolean;
  /** Fields the gateway cannot honour (`tls-server-name`, `proxy-url`), named for the error. */
  readonly unsupported: readonly string[];
}

export interface KubeconfigUser {
  readonly token: string | undefined;
  readonly cert: string | undefined;
  readonly key: string | undefined;
  /** Ways of authenticating the gateway cannot inject (`exec`, `auth-provider`, basic auth). */
  readonly unsupported: readonly string[];
}

export interface KubeconfigContext {
  readonly cluster: string;
  readonly user: string;
  readonly namespace: string | undefined;
}

/** A kubeconfig the gateway cannot use; the message lists every problem, each naming its entry and field. */
export class KubeconfigError extends Error {
  constructor(
    readonly source: string,
    readonly problems: readonly string[],
  ) {
    super(`${source}: ${problems.join('; ')}`);
    this.name = 'KubeconfigError';
  }
}

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);
const text = (value: unknown): string | undefined => (typeof value === 'string' && value !== '' ? value : undefined);

/**
 * Parses kubeconfig YAML (or JSON). `source` names the file in every message. Throws `KubeconfigError` for text
 * that is not a kubeconfig or names a file that cannot be read.
 */
export function parseKubeconfig(yaml: string, source: string, readFile?: (path: string) => string): Kubeconfig {
  const problems: string[] = [];
  let document: unknown;
  try {
    document = parse(yaml);
  } catch (error) {
    throw new KubeconfigError(source, [`not YAML: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`]);
  }
  if (!isObject(document)) throw new KubeconfigError(source, ['not a kubeconfig (expected a mapping with clusters, users and contexts)']);
  const read = (path: string, what: string): string | undefined => {
    if (!readFile) {
      problems.push(`${what}: file references are not supported here (${path}); embed it as ${what}-data`);
      return undefined;
    }
    const resolved = isAbsolute(path) ? path : join(dirname(source), path);
    try {
      return readFile(resolved);
    } catch (error) {
      problems.push(`${what}: cannot read ${resolved}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`);
      return undefined;
    }
  };
  const data = (entry: Json, field: string, what: string): string | undefined => {
    const inline = text(entry[`${field}-data`]);
    if (inline !== undefined) return Buffer.from(inline, 'base64').toString('utf8');
    const path = text(entry[field]);
    return path === undefined ? undefined : read(path, `${what}.${field}`);
  };

  const clusters = new Map<string, KubeconfigCluster>();
  for (const [name, cluster] of named(document['clusters'], 'cluster', 'clusters', problems)) {
    const unsupported = ['tls-server-name', 'proxy-url'].filter((field) => cluster[field] !== undefined && cluster[field] !== '');
    clusters.set(name, {
      server: text(cluster['server']) ?? '',
      caPem: data(cluster, 'certificate-authority', `clusters[${name}]`),
      insecureSkipTlsVerify: cluster['insecure-skip-tls-verify'] === true,
      unsupported,
    });
  }
  const users = new Map<string, KubeconfigUser>();
  for (const [name, user] of named(document['users'], 'user', 'users', problems)) {
    const tokenFile = text(user['tokenFile']);
    const token = text(user['token']) ?? (tokenFile === undefined ? undefined : read(tokenFile, `users[${name}].tokenFile`)?.trim());
    const unsupported = ['exec', 'auth-provider', 'username', 'password'].filter((field) => user[field] !== undefined && user[field] !== null && user[field] !== '');
    users.set(name, { token, cert: data(user, 'client-certificate', `users[${name}]`), key: data(user, 'client-key', `users[${name}]`), unsupported });
  }
  const contexts = new Map<string, KubeconfigContext>();
  for (const [name, context] of named(document['contexts'], 'context', 'contexts', problems)) {
    contexts.set(name, { cluster: text(context['cluster']) ?? '', user: text(context['user']) ?? '', namespace: text(context['namespace']) });
  }
  if (problems.length > 0) throw new KubeconfigError(source, problems);
  return { clusters, users, contexts, currentContext: text(document['current-context']) };
}

/** `[{name, <field>: {...}}]` → name → entry; malformed entries are problems. */
function named(list: unknown, field: string, key: string, problems: string[]): Array<[string, Json]> {
  if (list === undefined || list === null) return [];
  if (!Array.isArray(list)) {
    problems.push(`${key} must be a list`);
    return [];
  }
  const entries: Array<[string, Json]> = [];
  list.forEach((item: unknown, index) => {
    const name = isObject(item) ? text(item['name']) : undefined;
    if (!isObject(item) || name === undefined || !isObject(item[field])) return void problems.push(`${key}[${index}] needs a name and a ${field} mapping`);
    if (entries.some(([seen]) => seen === name)) return void problems.push(`${key}[${index}]: ${JSON.stringify(name)} is listed twice`);
    entries.push([name, item[field]]);
  });
  return entries;
}

/** The credential of a user, or why the gateway cannot inject it. */
export function userCredential(user: KubeconfigUser, name: string): KubeCredential | string {
  if (user.unsupported.length > 0) return `users[${name}] authenticates with ${user.unsupported.join(', ')}; the gateway can inject only a token or a client certificate`;
  if (user.token !== undefined) return { token: user.token };
  if (user.cert !== undefined && user.key !== undefined) return { cert: user.cert, key: user.key };
  return `users[${name}] has no token and no client certificate`;
}
