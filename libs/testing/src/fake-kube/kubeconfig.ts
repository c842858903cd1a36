import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';

/** Inputs of a kubeconfig for the fake API server. */
export interface KubeconfigOptions {
  /** `https://127.0.0.1:PORT` (or `http://` for a server started with `tls: false`). */
  server: string;
  /** PEM of the CA the server's certificate chains to (`certificate-authority-data`); without it the kubeconfig skips TLS verification. */
  certificateAuthority?: string;
  /** Bearer token of the user entry. Default `fake-kube-token` unless a client certificate is given. */
  token?: string;
  /** A client certificate chain and key (PEM) for the user entry (`client-certificate-data`, `client-key-data`). */
  clientCertificate?: { cert: string; key: string };
  /** Default namespace of the context. */
  namespace?: string;
  /** Name used for the cluster, user and context entries. Default `fake-kube`. */
  name?: string;
}

const base64 = (pem: string): string => Buffer.from(pem, 'utf8').toString('base64');

/**
 * A kubeconfig object (JSON is valid YAML, so kubectl, client-node and python3-kubernetes all read it). Without a
 * CA, `insecure-skip-tls-verify` is set: client-node refuses plain `http://` servers otherwise (stack-notes C).
 */
export function buildKubeconfig(options: KubeconfigOptions): Record<string, unknown> {
  const name = options.name ?? 'fake-kube';
  const context: Record<string, string> = { cluster: name, user: `${name}-user` };
  if (options.namespace) context['namespace'] = options.namespace;
  const cluster: Record<string, unknown> = { server: options.server };
  if (options.certificateAuthority) cluster['certificate-authority-data'] = base64(options.certificateAuthority);
  else cluster['insecure-skip-tls-verify'] = true;
  const user: Record<string, string> = {};
  if (options.clientCertificate) {
    user['client-certificate-data'] = base64(options.clientCertificate.cert);
    user['client-key-data'] = base64(options.clientCertificate.key);
  }
  if (options.token !== undefined || !options.clientCertificate) user['token'] = options.token ?? 'fake-kube-token';
  return {
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name, cluster }],
    users: [{ name: `${name}-user`, user }],
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
