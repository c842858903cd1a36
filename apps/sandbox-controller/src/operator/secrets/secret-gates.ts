import { KubeConfig, type V1Secret } from '@kubernetes/client-node';
import { errorText, tlsPairProblem } from '@cli-mcp/common';
import { REASONS, type Reason } from '../api/conditions.js';
import { secretText } from './generated-secrets.js';

/** Why the instance cannot serve because of a Secret, or undefined when every Secret it needs is usable. */
export interface SecretProblem {
  readonly reason: Reason;
  readonly message: string;
}

/** What the gates read: the namespace's Secrets by name (the operator's Secret cache). */
export type SecretLookup = (name: string) => V1Secret | undefined;

/** The kubeconfig key of the investigation Secret (the Go name, mounted at /config/kubeconfig). */
export const KUBECONFIG_KEY = 'kubeconfig';

/**
 * The Secret gates of `Ready`, in the Go operator's order (C-OP-4): a missing Secret (`SecretsNotFound`), then a
 * missing or empty key (`SecretKeysInvalid`, also for a generated Secret someone emptied: never overwritten), then
 * an unusable kubeconfig (`KubeconfigInvalid`). Extra Secrets referenced from `spec.sandbox.env` are not gates
 * (Go's rule): the pods that use them say so themselves.
 */
export function checkSecrets(lookup: SecretLookup, required: { kubeconfig: string; generated: ReadonlyArray<{ name: string; key: string }>; tls?: string }): SecretProblem | undefined {
  const all = [{ name: required.kubeconfig, key: KUBECONFIG_KEY }, ...required.generated];
  const missing = all.filter(({ name }) => lookup(name) === undefined).map(({ name }) => name);
  if (missing.length > 0) {
    return { reason: REASONS.secretsNotFound, message: `Secret ${missing.join(', ')} not found${missing.includes(required.kubeconfig) ? ` (create ${required.kubeconfig} with key ${KUBECONFIG_KEY}: the kubeconfig sandboxes use)` : ''}` };
  }
  const empty = all.filter(({ name, key }) => secretText(lookup(name), key) === undefined).map(({ name, key }) => `${name} (key ${key})`);
  if (empty.length > 0) return { reason: REASONS.secretKeysInvalid, message: `Secret ${empty.join(', ')} is missing or empty` };
  const problem = kubeconfigProblem(secretText(lookup(required.kubeconfig), KUBECONFIG_KEY)!);
  if (problem !== undefined) return { reason: REASONS.kubeconfigInvalid, message: `Secret ${required.kubeconfig} key ${KUBECONFIG_KEY}: ${problem}` };
  return required.tls === undefined ? undefined : tlsSecretProblem(lookup(required.tls), required.tls);
}

/**
 * The optional `cli-mcp-<name>-tls`: absent means plain HTTP; present, it must hold a pair the server starts with
 * (the server's own check), else `SecretKeysInvalid` rather than a server that crash-loops on it.
 */
function tlsSecretProblem(secret: V1Secret | undefined, name: string): SecretProblem | undefined {
  if (secret === undefined) return undefined;
  const [cert, key] = [secretText(secret, 'tls.crt'), secretText(secret, 'tls.key')];
  const problem = cert === undefined || key === undefined ? 'needs both tls.crt and tls.key' : tlsPairProblem(cert, key);
  return problem === undefined ? undefined : { reason: REASONS.secretKeysInvalid, message: `Secret ${name}: ${problem}` };
}

/** Whether the instance serves HTTPS: its TLS Secret exists and passes {@link checkSecrets}. */
export function servesTls(lookup: SecretLookup, name: string): boolean {
  const secret = lookup(name);
  return secret !== undefined && tlsSecretProblem(secret, name) === undefined;
}

/**
 * Why `text` is not a kubeconfig `kubectl` in a sandbox can use (parsed by client-node's own loader): it must
 * parse, name a current context, and that context must name a cluster with a server and a user.
 */
export function kubeconfigProblem(text: string): string | undefined {
  const config = new KubeConfig();
  try {
    config.loadFromString(text);
  } catch (error) {
    return `not a kubeconfig: ${errorText(error).split('\n')[0]}`;
  }
  const contextName = config.getCurrentContext();
  if (!contextName) return 'no current-context';
  const context = config.getContextObject(contextName);
  if (!context) return `current-context ${JSON.stringify(contextName)} is not among its contexts`;
  const cluster = config.getCluster(context.cluster);
  if (!cluster?.server) return `context ${JSON.stringify(contextName)} names cluster ${JSON.stringify(context.cluster)}, which has no server`;
  if (!context.user || !config.getUser(context.user)) return `context ${JSON.stringify(contextName)} names no known user`;
  return undefined;
}
