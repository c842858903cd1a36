import { RuntimeCa } from '@cli-mcp/egress';
import { isAlreadyExists, isNotFound } from '@cli-mcp/kube';
import type { EgressKubeApi, StoredObject } from './egress-kube-api.port.js';

/** The CA Secret exists but cannot be used: a start-up error (retrying would not change it). */
export class CaSecretError extends Error {
  override readonly name = 'CaSecretError';
}

/**
 * The runtime CA every replica shares (C-EGR-4): sandboxes trust one CA (the sandbox ConfigMap's `ca.crt`), so a
 * connection may land on either replica. Read from the `kubernetes.io/tls` Secret; when there is none, a new CA is
 * minted and created — two replicas starting together both try, the loser's create answers 409 AlreadyExists and it
 * reads and uses the winner's. API failures are thrown as they are (the caller retries); an unusable Secret is a
 * `CaSecretError` naming it.
 */
export async function loadSharedCa(api: EgressKubeApi, namespace: string, name: string, signal: AbortSignal): Promise<{ ca: RuntimeCa; created: boolean }> {
  const existing = await getSecret(api, name, signal);
  if (existing) return { ca: await fromSecret(existing, namespace), created: false };
  const pem = await RuntimeCa.generatePem('cli-mcp egress gateway');
  try {
    await api.createTlsSecret(name, { 'tls.crt': pem.cert, 'tls.key': pem.key }, signal);
    return { ca: await RuntimeCa.fromPem(pem.cert, pem.key), created: true };
  } catch (error) {
    if (!isAlreadyExists(error)) throw error;
  }
  return { ca: await fromSecret(await api.getSecret(name, signal), namespace), created: false };
}

async function getSecret(api: EgressKubeApi, name: string, signal: AbortSignal): Promise<StoredObject | undefined> {
  try {
    return await api.getSecret(name, signal);
  } catch (error) {
    if (isNotFound(error)) return undefined;
    throw error;
  }
}

async function fromSecret(secret: StoredObject, namespace: string): Promise<RuntimeCa> {
  const where = `the CA Secret ${namespace}/${secret.name} (--ca-secret)`;
  const cert = secret.data['tls.crt'];
  const key = secret.data['tls.key'];
  if (!cert || !key) throw new CaSecretError(`${where} has no ${!cert ? 'tls.crt' : 'tls.key'}; delete it to have a new CA minted, or fill it with a P-256 CA`);
  try {
    return await RuntimeCa.fromPem(cert, key);
  } catch (error) {
    throw new CaSecretError(`${where} is not a usable CA: ${error instanceof Error ? error.message : String(error)}`);
  }
}
