import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';

/** Inputs of a kubeconfig for the fake API server. */
export interface KubeconfigOptions {
  /** `http://127.0.0.1:PORT`. */
  server: string;
  /** Bearer token of the user entry (any value works when the server has auth disabled). */
  token?: string;
  /** Default namespace of the context. */
  namespace?: string;
  /** Name used for the cluster, user and context entries. Default `fake-kube`. */
  name?: string;
}

/**
 * A kubeconfig object (JSON is valid YAML, so kubectl and client-node both read it). `insecure-skip-tls-verify`
 * is set because client-node refuses plain `http://` servers otherwise (stack-notes C).
 */
export function buildKubeconfig(options: KubeconfigOptions): Record<string, unknown> {
  const name = options.name ?? 'fake-kube';
  const context: Record<string, string> = { cluster: name, user: `${name}-user` };
  if (options.namespace) context['namespace'] = options.namespace;
  return {
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name, cluster: { server: options.server, 'insecure-skip-tls-verify': true } }],
    users: [{ name: `${name}-user`, user: { token: options.token ?? 'fake-kube-token' } }],
    contexts: [{ name, context }],
    'current-context': name,
    preferences: {},
  };
}

/**
 * Writes a kubeconfig file (mode 0600) and returns its absolute path. Without `path`, a new temp directory is
 * created for it.
 */
export async function writeKubeconfig(options: KubeconfigOptions, path?: string): Promise<string> {
  const target = path ? resolve(path) : join(await mkdtemp(join(tmpdir(), 'fake-kube-')), 'kubeconfig');
  await mkdir(dirname(target), { recursive: true });
  await writeFile(target, `${JSON.stringify(buildKubeconfig(options), null, 2)}\n`, { mode: 0o600 });
  return target;
}
